// Package seccomp compiles a runtime-spec seccomp profile into a classic BPF
// program, for the backends that load a filter themselves rather than hand
// the profile to an OCI runtime: bubblewrap reads the program from a file
// descriptor (--seccomp FD), and golem-box's Landlock helper installs it
// before it execs the command.
//
// The profile is the one oci.Compile writes for every container (containerd's
// default profile for a process without capabilities, minus ptrace and
// process_vm_*), so that every backend blocks the same system calls. The
// compiler is small and strict:
//
//   - a system call from another architecture (i386 on x86_64, or the x32 ABI)
//     is refused outright; Docker's profile allows them, golem-box does not
//     need them;
//   - argument conditions compare all 64 bits, as libseccomp does; several
//     conditions in one rule must all hold, several rules for one call are
//     alternatives;
//   - a profile feature it cannot express (an action or operator it does not
//     know, one argument compared twice in a rule) is an error, never dropped;
//   - names the architecture does not have are skipped, as libseccomp does.
//
// Why not libseccomp: golem-box is one static binary built without cgo, and
// the pure-Go generators that exist are not in the module proxy this project
// builds from. The assembler is golang.org/x/net/bpf; the system call tables
// are generated from golang.org/x/sys/unix (go generate).
package seccomp
