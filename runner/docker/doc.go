// Package docker is the runner backend for the Docker Engine, driven
// through its official Go client (github.com/moby/moby/client) with the API
// version negotiated, so that Debian 12's engine (API 1.41) and current
// ones both work.
//
// The sandbox is compiled once by oci.Compile, exactly as for runc and
// crun, and the spec is translated into the engine's container
// configuration (translate.go): the same bind mounts at the same virtual
// paths, read-only ones recursively so where the engine can say it (API
// 1.44 and later) and otherwise refused when their source has submounts,
// as on the OCI backend; network mode "none"; every capability dropped;
// no-new-privileges; golem-box's seccomp profile; a read-only root
// filesystem with a size-limited tmpfs at /tmp; memory, pids and CPU
// limits; the invoking uid:gid. A field of the spec the translation does
// not know is an error, never dropped.
//
// The container's image is a skeleton: an image of one tiny layer holding
// only the root's symbolic links, built locally and loaded once per set of
// links. The operating system comes from the same read-only binds as on
// the OCI backend (the host's /usr and friends, or a cached image's
// directories), and /etc from the run's bundle directory.
//
// Output is attached before the start, demultiplexed into capped buffers,
// and never stored by the engine (log driver "none"). Every container is
// labelled io.golem-box.run and io.golem-box.owner (the pid and start time
// of the golem-box process), removed when the run ends, and found by GC
// when a killed golem-box left it behind.
//
// Two differences from the OCI backend are the engine's: the engine gives
// a container no user namespace of its own (only a daemon-wide userns-remap
// does), so uid 0 inside is uid 0 outside, held back by the empty
// capability sets, no-new-privileges and seccomp; and its default device
// rules also allow mknod, which the dropped CAP_MKNOD refuses anyway.
package docker
