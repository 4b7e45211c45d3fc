package doctor

import "golang.org/x/sys/unix"

// landlockABI asks the kernel for its Landlock ABI version, 0 when
// Landlock is absent or disabled. It works without securityfs.
func landlockABI() int {
	const createRulesetVersion = 1 // LANDLOCK_CREATE_RULESET_VERSION
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, createRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}
