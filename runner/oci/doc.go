// Package oci is the runner backend that drives an OCI runtime binary: crun
// when present (it starts faster), else runc, or any runtime given by path
// (runsc, youki).
//
// Each run gets a bundle in a private state directory (0700): config.json
// from oci.Compile, golem-box's empty root filesystem and /etc. The runtime
// runs in the foreground with pipes for stdio; a deadline or a cancelled
// context kills the container; the container and the bundle are always
// deleted, and GC removes what a killed golem-box left behind (each bundle
// records the pid of its owner).
//
// crun refuses hosts whose cgroups are in "hybrid" mode (v1 controllers
// with a v2 hierarchy at /sys/fs/cgroup/unified), such as Debian 12 with
// its default boot options. There the backend forks crun from a dedicated
// OS thread that has a private mount namespace in which
// /sys/fs/cgroup/unified is unmounted (the host is untouched), so that crun
// sees plain cgroup v1. See runtime_linux.go.
package oci
