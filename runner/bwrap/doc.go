// Package bwrap runs jobs under bubblewrap, the unprivileged sandbox of
// Flatpak: for trusted work, where a container's daemon or runtime costs
// more than the isolation is worth, but namespaces are still wanted.
//
// The job is compiled exactly as for a container (oci.Compile) and the
// spec is translated into bwrap's command line (Args): every namespace
// unshared (the network one kept only when the network is on), the
// invoking user mapped to itself, no capabilities, no further user
// namespaces, a new session (CVE-2017-5226), the command as pid 1, the
// root and mounts bound at their virtual paths, the host's OS directories
// read-only, a fresh /proc with Docker's masked and read-only paths, bwrap's
// minimal /dev, a size-limited /tmp, and the seccomp filter of the
// containers (package seccomp) plus TIOCSTI/TIOCLINUX on a file descriptor.
//
// What bwrap has no flag for is done around it: golem-box's init helper
// (package procinit) puts bwrap in the run's control group (package
// cgroup) and sets RLIMIT_NOFILE and no_new_privs before it execs bwrap.
// The sandbox has no /sys: bwrap cannot mount one, and binding the host's
// would show the host's devices and network interfaces.
//
// A spec entry the translation does not know is an error, never skipped.
package bwrap
