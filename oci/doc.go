// Package oci compiles a mountspec.Sandbox into an OCI runtime spec
// (config.json) with hardened defaults, for runc, crun and the engines that
// take such a spec.
//
// Paths are paths (seed 000): inside the container the sandbox's files are
// at the same virtual paths the file tools use. The layout chosen:
//
//   - The container's root filesystem is a small directory that golem-box
//     owns, created empty in each run's private bundle and mounted
//     read-only. Nothing is created in the user's directories.
//   - The operating system comes from the image. The default image "host"
//     binds the host's /usr, /bin, /sbin and /lib* read-only and a minimal
//     /etc that golem-box writes (passwd, group, hosts, resolv.conf,
//     nsswitch.conf) plus the host's dynamic-linker cache and alternatives.
//     It works offline with no download.
//   - Each top-level entry of the sandbox's root is bound at /<entry> with
//     the root's mode; a top-level symbolic link is recreated as the same
//     link in the golem-box root filesystem, so that it resolves inside the
//     container, never on the host. An entry whose name is an OS path (usr,
//     etc, proc, ...) is hidden by it: Compile reports it and `golem-box
//     check` shows it.
//   - Mounts are bound at their targets. A mount nested inside a user
//     directory needs its mount point to exist there already; Compile
//     refuses rather than let the runtime create a stray directory.
//   - With image "none" the root itself is the complete root filesystem
//     (read-only), and must already hold every mount point.
//
// Hardening follows Docker's defaults and goes further: every namespace
// (user, with the invoking uid and gid mapped to themselves; an empty network
// namespace unless the network is on), no capabilities, no_new_privs,
// containerd's default seccomp profile, Docker's masked and read-only paths,
// read-only root, a size-limited /tmp, RLIMIT_NOFILE, memory, pids and CPU
// limits, recursive read-only binds (or plain read-only only where the source
// has no submounts), and a working directory under /proc refused
// (CVE-2024-21626).
//
// Threat model: the spec must hold against the process inside. Mount sources
// are host paths from the configuration (trusted); the content of the root
// is not, which is why links at its top level are never handed to the
// runtime as mount sources.
package oci
