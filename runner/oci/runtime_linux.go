package oci

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// hybridEnv marks the re-executed helper that starts crun on hybrid hosts.
const hybridEnv = "GOLEM_BOX_CRUN_HYBRID"

func init() {
	if os.Getenv(hybridEnv) != "1" {
		return
	}
	// We are the helper, alone in a private mount namespace (Unshareflags
	// made / rprivate): hide the v2 hierarchy and become the runtime.
	os.Unsetenv(hybridEnv)
	if err := unix.Unmount("/sys/fs/cgroup/unified", unix.MNT_DETACH); err != nil && err != unix.EINVAL {
		os.Stderr.WriteString("golem-box: cannot hide /sys/fs/cgroup/unified for crun: " + err.Error() + "\n")
		os.Exit(125)
	}
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	os.Stderr.WriteString("golem-box: exec " + os.Args[1] + ": " + err.Error() + "\n")
	os.Exit(125)
}

// HybridCgroups reports a host with cgroup v1 controllers and a v2
// hierarchy at /sys/fs/cgroup/unified.
func HybridCgroups() bool {
	var root, unified unix.Statfs_t
	if unix.Statfs("/sys/fs/cgroup", &root) != nil || unix.Statfs("/sys/fs/cgroup/unified", &unified) != nil {
		return false
	}
	return root.Type != unix.CGROUP2_SUPER_MAGIC && unified.Type == unix.CGROUP2_SUPER_MAGIC
}

// command builds the exec.Cmd that runs the runtime with args, through the
// hybrid helper when needed.
func (b *Backend) command(args ...string) *exec.Cmd {
	full := append([]string{"--root", b.runtimeState}, args...)
	if !b.hybrid {
		return exec.Command(b.path, full...)
	}
	self, err := os.Executable()
	if err != nil {
		return exec.Command(b.path, full...) // fails loudly in crun, as without the helper
	}
	cmd := exec.Command(self, append([]string{b.path}, full...)...)
	cmd.Args[0] = "golem-box-crun-helper"
	cmd.Env = append(os.Environ(), hybridEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	return cmd
}
