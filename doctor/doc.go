// Package doctor tells the truth about this machine: the kernel features
// golem-box relies on (cgroup layout, user namespaces, seccomp, Landlock)
// and, for every backend this build knows, whether it can run here, why
// not, and the command that fixes it. `golem-box doctor` prints it.
//
// It reads; it never changes the machine.
package doctor
