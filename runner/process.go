package runner

import (
	"bytes"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Attach gives cmd the job's standard input (empty when none) and capped
// output, for backends that run a local process (a runtime, bwrap, the
// init helper, sandbox-exec). Processes of the sandbox may hold the output
// pipes after cmd is gone: Wait gives up on them after two seconds.
func Attach(cmd *exec.Cmd, job *Job) *Output {
	out := NewOutput(job)
	cmd.Stdin = job.Stdin
	if cmd.Stdin == nil {
		cmd.Stdin = bytes.NewReader(nil)
	}
	cmd.Stdout, cmd.Stderr = out.Stdout, out.Stderr
	cmd.WaitDelay = 2 * time.Second
	return out
}

// ExitStatus reads what exec.Cmd.Wait returned the way a shell does: the
// exit code, or 128+N for signal N. Any other error (the process could
// not be waited for) is returned.
func ExitStatus(waitErr error) (int, error) {
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
		return 0, nil
	case errors.As(waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return -1, waitErr
}
