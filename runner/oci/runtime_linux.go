package oci

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// HybridCgroups reports a host with cgroup v1 controllers and a v2
// hierarchy at /sys/fs/cgroup/unified.
func HybridCgroups() bool {
	var root, unified unix.Statfs_t
	if unix.Statfs("/sys/fs/cgroup", &root) != nil || unix.Statfs("/sys/fs/cgroup/unified", &unified) != nil {
		return false
	}
	return root.Type != unix.CGROUP2_SUPER_MAGIC && unified.Type == unix.CGROUP2_SUPER_MAGIC
}

// command builds the exec.Cmd that runs the runtime with args.
func (b *Backend) command(args ...string) *exec.Cmd {
	return exec.Command(b.path, append([]string{"--root", b.runtimeState}, args...)...)
}

// start starts cmd. For crun on a hybrid host it forks from a dedicated OS
// thread that has a private mount namespace without the v2 hierarchy, so
// that crun sees plain cgroup v1 and the host's mounts are untouched. The
// thread stays locked and ends with its goroutine, taking the namespace
// with it; Go starts new threads from its template thread, so no other
// thread inherits it.
func (b *Backend) start(cmd *exec.Cmd) error {
	if !b.hybrid {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if err := unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_FS); err != nil {
			errc <- fmt.Errorf("crun on hybrid cgroups needs a private mount namespace: %w", err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			errc <- fmt.Errorf("crun on hybrid cgroups: make / private: %w", err)
			return
		}
		if err := unix.Unmount("/sys/fs/cgroup/unified", unix.MNT_DETACH); err != nil && err != unix.EINVAL {
			errc <- fmt.Errorf("crun on hybrid cgroups: hide /sys/fs/cgroup/unified: %w", err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
