package sandbox

import (
	"os"
	"strconv"
)

// realPath returns the path the kernel holds for an open file. Reading the
// descriptor's /proc/self/fd link does not change its blocking mode, unlike
// File.Fd.
func realPath(fh *os.File) (string, bool) {
	rc, err := fh.SyscallConn()
	if err != nil {
		return "", false
	}
	var p string
	var rerr error
	if err := rc.Control(func(fd uintptr) {
		p, rerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	}); err != nil || rerr != nil {
		return "", false
	}
	return p, true
}
