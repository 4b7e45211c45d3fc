package runner

import (
	"context"
	"errors"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/golem-box/golem-box/mountspec"
)

// Errors callers test with errors.Is.
var (
	// ErrUnavailable is a backend that cannot run here (binary missing,
	// daemon down, kernel feature off); the error says which and the fix.
	ErrUnavailable = errors.New("backend unavailable")
	// ErrUnsupported is a backend that does not exist on this platform.
	ErrUnsupported = errors.New("backend not supported on this platform")
)

// DefaultOutputBytes caps stdout and stderr when limits.output_bytes is unset.
const DefaultOutputBytes = 1 << 20

// Job is one command to run in a sandbox.
type Job struct {
	Sandbox *mountspec.Sandbox
	Args    []string
	// Env adds KEY=VALUE pairs to the minimal environment.
	Env []string
	// Workdir is a virtual path; default "/".
	Workdir string
	// Image overrides the sandbox's image.
	Image string
	// Stdin is the command's standard input; nil means empty.
	Stdin io.Reader
	// Timeout overrides limits.timeout; zero means the sandbox's, or none.
	Timeout time.Duration
	// Terminal allocates a terminal (not with captured output).
	Terminal bool
}

// Reason says why a run ended.
type Reason string

// Reasons.
const (
	ReasonExit    Reason = "exit"    // the process exited
	ReasonSignal  Reason = "signal"  // a signal from inside ended it
	ReasonTimeout Reason = "timeout" // golem-box killed it at the deadline
	ReasonOOM     Reason = "oom"     // the kernel killed it for memory
	ReasonKilled  Reason = "killed"  // killed from outside (cancelled, or by someone else)
)

// Result is what a run produced.
type Result struct {
	Backend  string        `json:"backend"`
	ExitCode int           `json:"exit_code"`
	Signal   string        `json:"signal,omitempty"`
	Reason   Reason        `json:"reason"`
	Duration time.Duration `json:"duration_ns"`
	Stdout   []byte        `json:"stdout"`
	Stderr   []byte        `json:"stderr"`
	// StdoutTruncated and StderrTruncated say the output went past the cap.
	StdoutTruncated bool `json:"stdout_truncated"`
	StderrTruncated bool `json:"stderr_truncated"`
}

// Backend runs jobs.
type Backend interface {
	// Name is "oci/runc", "oci/crun", "docker", ...
	Name() string
	// Available returns nil when the backend can run here, or an error
	// wrapping ErrUnavailable that says why and how to fix it.
	Available(ctx context.Context) error
	// Run runs the job to its end and always cleans up.
	Run(ctx context.Context, job *Job) (*Result, error)
}

// Documenter is a backend that documents what it cannot enforce, for
// run --explain and doctor.
type Documenter interface {
	Limitations() []string
}

// TimeoutOrDefault is the job's deadline: its own, else the sandbox's, else none.
func (j *Job) TimeoutOrDefault() time.Duration {
	if j.Timeout > 0 {
		return j.Timeout
	}
	return time.Duration(j.Sandbox.Limits.Timeout)
}

// OutputLimit is the cap on each of stdout and stderr.
func (j *Job) OutputLimit() int64 {
	if n := int64(j.Sandbox.Limits.OutputBytes); n > 0 {
		return n
	}
	return DefaultOutputBytes
}

// CapBuffer keeps the first Limit bytes written to it and counts the rest,
// so that a chatty process is never blocked and never fills memory.
type CapBuffer struct {
	Limit int64
	mu    sync.Mutex
	buf   []byte
	total int64
}

// Write keeps what fits and always reports the whole write as done.
func (c *CapBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if room := c.Limit - int64(len(c.buf)); room > 0 {
		c.buf = append(c.buf, p[:min(int64(len(p)), room)]...)
	}
	return len(p), nil
}

// Bytes returns what was kept.
func (c *CapBuffer) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf
}

// Truncated reports whether anything was dropped.
func (c *CapBuffer) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(len(c.buf))
}

// SetExit records how the run ended from its exit status, read the way a
// shell does: 128+N is signal N. reason, when set, is what golem-box itself
// did (timeout, killed) and wins; a SIGKILL nobody here sent is an OOM kill
// when oom says so, else a kill from outside.
func (r *Result) SetExit(code int, reason Reason, oom func() bool) {
	r.ExitCode = code
	if code > 128 && code < 128+65 {
		r.Signal = syscall.Signal(code - 128).String()
	}
	switch {
	case reason != "":
	case code == 128+int(syscall.SIGKILL) && oom != nil && oom():
		reason = ReasonOOM
	case code == 128+int(syscall.SIGKILL):
		reason = ReasonKilled
	case r.Signal != "":
		reason = ReasonSignal
	default:
		reason = ReasonExit
	}
	r.Reason = reason
}

// Output is a run's stdout and stderr, each capped at the job's limit.
type Output struct{ Stdout, Stderr *CapBuffer }

// NewOutput makes the capped buffers for job.
func NewOutput(job *Job) *Output {
	lim := job.OutputLimit()
	return &Output{Stdout: &CapBuffer{Limit: lim}, Stderr: &CapBuffer{Limit: lim}}
}

// Result is what the backend reports, before SetExit.
func (o *Output) Result(backend string, d time.Duration) *Result {
	return &Result{Backend: backend, Duration: d,
		Stdout: o.Stdout.Bytes(), Stderr: o.Stderr.Bytes(),
		StdoutTruncated: o.Stdout.Truncated(), StderrTruncated: o.Stderr.Truncated()}
}

// Supervise waits until ended is closed, calling kill once when the job's
// deadline passes or ctx is cancelled, and returns the reason golem-box
// ended the run ("" when the command ended by itself). Backends whose
// daemon reports the end call it with a channel closed by their wait.
func Supervise(ctx context.Context, job *Job, ended <-chan struct{}, kill func()) Reason {
	var deadline <-chan time.Time
	if t := job.TimeoutOrDefault(); t > 0 {
		timer := time.NewTimer(t)
		defer timer.Stop()
		deadline = timer.C
	}
	select {
	case <-ended:
		return ""
	case <-deadline:
		kill()
		<-ended
		return ReasonTimeout
	case <-ctx.Done():
		kill()
		<-ended
		return ReasonKilled
	}
}
