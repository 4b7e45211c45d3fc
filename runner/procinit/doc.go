// Package procinit is the short-lived copy of golem-box that stands between
// a backend and the program it starts, for the backends whose isolation is
// set up by the process itself rather than by a runtime (bubblewrap,
// Landlock). golem-box re-executes its own binary under the name
// "golem-box-init" (github.com/moby/sys/reexec); the copy reads a Spec from
// file descriptor 3 and, on one locked thread, in this order:
//
//  1. joins the run's control groups, so that nothing the program starts
//     escapes its limits;
//  2. sets RLIMIT_NOFILE;
//  3. drops every capability (when asked);
//  4. sets no_new_privs;
//  5. applies Landlock rules (when asked);
//  6. changes to the working directory;
//  7. installs the seccomp filter (when given) — last, since it may refuse
//     the calls above;
//  8. execs the program.
//
// If any step fails the copy writes the error to descriptor 4 and exits;
// descriptor 4 is close-on-exec, so the backend reading it sees either an
// error or, once the exec succeeded, end of file. That tells golem-box's
// own failures (a missing program, a refused cgroup) apart from the
// program's, whatever the program prints.
//
// Any binary that links a backend using this package gets the hook (Go
// test binaries too): init registers it and runs it when argv[0] says so.
package procinit
