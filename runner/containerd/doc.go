// Package containerd is the runner backend for containerd, driven through
// its official Go client (github.com/containerd/containerd/v2/client); it
// works with Debian 12's containerd 1.6 and with current ones.
//
// Everything golem-box makes lives in the containerd namespace "golem-box".
// The spec is oci.Compile's, used as is, with the root filesystem at the
// run's bundle (golem-box's empty, read-only skeleton, into which the
// operating system and the sandbox's directories are bound read-only or
// read-write exactly as on the OCI backend; a cached image's directories
// are bound the same way), so that containerd needs no image and no
// snapshot of its own. Runs on containerd's runc shim (io.containerd.runc.v2).
//
// Each run holds a lease while it lives (so that containerd's garbage
// collector never takes what a live run uses, and anything left expires),
// streams the task's output through FIFOs into capped buffers, waits, and
// then deletes the task, the container and the lease. Containers and
// leases are labelled io.golem-box.run and io.golem-box.owner (pid and
// start time of the golem-box process), which GC uses to remove what a
// killed golem-box left behind.
package containerd
