package policy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
)

// maxHintScan bounds how much of a command's error output Hints reads: the
// end, where the failure is reported.
const maxHintScan = 64 << 10

// Failure messages of the C library and common tools, by the boundary they
// usually mean inside a sandbox.
var (
	networkFailures = []string{"Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
		"Name or service not known", "No address associated with hostname", "Address family not supported by protocol",
		"nodename nor servname provided"}
	writeFailures = []string{"Read-only file system", "Permission denied", "Operation not permitted"}
)

// Hints reads the error output of a command that failed in sb and says, for
// a model, which boundary it probably ran into (seed 003, "For shell
// commands"): that the network is off, or which paths are writable. The
// OS's own message ("Permission denied") does not say that it was the
// sandbox, nor what is allowed instead.
func Hints(stderr []byte, sb *mountspec.Sandbox) []string {
	if len(stderr) > maxHintScan {
		stderr = stderr[len(stderr)-maxHintScan:]
	}
	var out []string
	if !sb.Network.Enabled && containsAny(stderr, networkFailures) {
		out = append(out, "Network access is disabled for this sandbox (network: false): the command cannot reach any host.")
	}
	if len(sb.Network.Allow) > 0 && containsAny(stderr, networkFailures) {
		out = append(out, fmt.Sprintf("Network access is limited to: %s.", strings.Join(sb.Network.Allow, ", ")))
	}
	if containsAny(stderr, writeFailures) {
		out = append(out, fmt.Sprintf("Writable paths of this sandbox: %s. Everything else is read-only or not there.", list(sb.WritablePaths())))
	}
	return out
}

func containsAny(b []byte, subs []string) bool {
	for _, s := range subs {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}
