// Package runnertest is the conformance suite every runner backend passes
// against the real component on this machine: the sandbox's files and
// nothing else, no network, no capabilities, seccomp on, limits enforced,
// output capped, exit codes propagated, files owned by the invoking user.
//
// A backend's test calls Run with a constructor. The suite builds a small
// static probe (./probe) and binds it read-only into each sandbox to try
// the syscalls that must fail.
package runnertest
