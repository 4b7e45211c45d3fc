package runstate

import (
	"os"
	"strconv"
	"strings"
)

// OOMKills is the system-wide count of OOM kills (/proc/vmstat oom_kill),
// or -1 when the kernel does not say. Read it before a run and give it to
// OOMKilled after.
func OOMKills() int64 {
	n, ok := counter("/proc/vmstat", "oom_kill")
	if !ok {
		return -1
	}
	return n
}

// OOMKilled says whether the kernel's OOM killer ended the container whose
// cgroup is /golem-box/ID. The container's own memory cgroup says so
// precisely while it exists (cgroup v2, or a runtime that keeps it until
// delete), but `runc run` and `crun run` remove it the moment the process
// exits, and cgroup v1 does not count kills in the parent. Then the
// system-wide counter decides: it moved during a run that ended by a
// SIGKILL nobody in golem-box sent. Another OOM kill elsewhere at the same
// moment could mislabel a run that someone else SIGKILLed; that is the
// price of not polling.
func OOMKilled(id string, before int64) bool {
	for _, p := range []string{
		"/sys/fs/cgroup/memory/golem-box/" + id + "/memory.oom_control",
		"/sys/fs/cgroup/golem-box/" + id + "/memory.events",
	} {
		if n, ok := counter(p, "oom_kill"); ok {
			return n > 0
		}
	}
	after := OOMKills()
	return before >= 0 && after > before
}

// counter reads "name value" lines.
func counter(file, name string) (int64, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			n, err := strconv.ParseInt(f[1], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
