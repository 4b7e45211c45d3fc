// Package cgroup gives a run that no OCI runtime manages (bubblewrap,
// Landlock) the same memory, process and CPU limits the containers get, in
// a control group of its own: /golem-box/ID under each v1 controller, or
// under the unified v2 tree. The run's first process joins the group before
// it execs anything (package procinit), so nothing it starts escapes.
//
// It writes the few files it needs itself rather than use
// containerd/cgroups, which would bring cilium/ebpf for v2 device filters
// these backends do not need: their /dev holds only the standard nodes, and
// without capabilities nothing inside can create another.
//
// The group is writable for root, or on a v2 host whose tree golem-box may
// write (delegation). Where it is not, limits the configuration asks for
// are refused (Writable explains); the defaults alone are not enforced, and
// --explain and doctor say so.
package cgroup
