// Package landlock runs jobs under Landlock, the Linux security module
// that lets an unprivileged process restrict itself: no namespaces, no
// daemon, no setuid helper, the lightest layer golem-box has.
//
// golem-box re-executes itself as its init helper (package procinit),
// which joins the run's control group, drops every capability, sets
// no_new_privs, applies the Landlock rules Plan computes, installs the
// containers' seccomp filter and execs the command.
//
// What it grants: the sandbox's root read-only or read-write entry by
// entry (so, as in a container, nothing new appears at its top level), each
// mount by its mode, the OS directories of the image "host" and a few files
// of /etc read-only, /proc read-only, the standard devices, and a private
// temporary directory as $TMPDIR and $HOME.
//
// What it cannot do, and says (run --explain, and the conformance suite
// checks exactly these):
//
//   - remap paths: inside, virtual paths are host paths. The working
//     directory is translated; the command's arguments are not;
//   - hide processes or network interfaces: there is no pid or network
//     namespace. Signals to processes outside are refused (Landlock ABI 6),
//     and so is reading their memory or environment (Landlock's ptrace rule);
//   - a network namespace: with the network off, seccomp refuses inet and
//     packet sockets, and Landlock refuses TCP bind and connect (ABI 4);
//   - named UNIX sockets before Landlock ABI 9: a sandbox could connect to
//     any socket its user may (a Docker socket, a session bus). golem-box
//     then refuses socket(AF_UNIX) outright; socketpair still works;
//   - write errors read "Permission denied", not "Read-only file system".
//
// Landlock ABI 3 is required: before it, truncate(2) was not restricted,
// and a read-only file could be emptied.
package landlock
