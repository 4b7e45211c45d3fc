package policy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/sandbox"
	"github.com/pmezard/go-difflib/difflib"
)

// Request is what an approver is asked: the change, who wants it, and for
// writes and edits a unified diff. It is what an approval command reads on
// its standard input.
type Request struct {
	// Who is the worker (or "golem-box" for the command line) making it.
	Who string `json:"who"`
	sandbox.Change
	// Setting is the mount's approval mode for this operation.
	Setting mountspec.ApprovalMode `json:"setting"`
	// Diff is a unified diff of the change, empty for deletions and for
	// content too large or binary to show (the sizes still say what
	// happens).
	Diff string `json:"diff,omitempty"`
}

// MaxDiffBytes bounds the diff a request carries.
const MaxDiffBytes = 256 << 10

// Answer is an approver's decision.
type Answer struct {
	Approved bool
	// Reason is what the approver said, if anything (shown when refused).
	Reason string
}

// Approver decides on requests. An error means it could not decide; the
// change is then refused like a "no".
type Approver interface {
	// Name is how the approval log names it: "--yes", "terminal",
	// "command: /path/to/ui".
	Name() string
	Approve(ctx context.Context, r *Request) (Answer, error)
}

// Yes approves everything: --yes, for one command.
type Yes struct{}

func (Yes) Name() string { return "--yes" }

func (Yes) Approve(context.Context, *Request) (Answer, error) { return Answer{Approved: true}, nil }

// Command approves a request when Argv, given the request as JSON on its
// standard input, exits 0. Anything it prints (bounded) is the reason.
type Command struct {
	Argv []string
	// Timeout bounds one decision; zero means DefaultCommandTimeout.
	Timeout time.Duration
}

// DefaultCommandTimeout leaves a person behind the command time to answer.
const DefaultCommandTimeout = 10 * time.Minute

// maxReasonBytes bounds what is kept of an approver's output.
const maxReasonBytes = 4 << 10

func (c Command) Name() string {
	if len(c.Argv) == 3 && c.Argv[0] == "/bin/sh" && c.Argv[1] == "-c" {
		return "command: " + c.Argv[2]
	}
	return "command: " + strings.Join(c.Argv, " ")
}

func (c Command) Approve(ctx context.Context, r *Request) (Answer, error) {
	in, err := json.Marshal(r)
	if err != nil {
		return Answer{}, err
	}
	t := c.Timeout
	if t <= 0 {
		t = DefaultCommandTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Stdin = bytes.NewReader(in)
	out := &capped{max: maxReasonBytes}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	reason := strings.TrimSpace(strings.ToValidUTF8(out.String(), "?"))
	var ee *exec.ExitError
	switch {
	case err == nil:
		return Answer{Approved: true, Reason: reason}, nil
	case ctx.Err() != nil:
		return Answer{}, fmt.Errorf("the approval command did not answer within %s", t)
	case errors.As(err, &ee):
		return Answer{Approved: false, Reason: reason}, nil
	}
	return Answer{}, fmt.Errorf("the approval command could not run: %w", err)
}

// capped keeps the first max bytes written to it and discards the rest.
// (The buffer is a field, not embedded: io.Copy would use its ReadFrom.)
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// Prompt asks a person on a terminal: it shows the change and reads y or n.
type Prompt struct {
	In  io.Reader
	Out io.Writer
}

func (Prompt) Name() string { return "terminal" }

func (p Prompt) Approve(_ context.Context, r *Request) (Answer, error) {
	w := p.Out
	fmt.Fprintf(w, "\n%s wants to %s %s", r.Who, r.Op, r.Path)
	if r.Mount != "/" {
		fmt.Fprintf(w, " (mount %s)", r.Mount)
	}
	fmt.Fprintln(w)
	switch {
	case r.Op == sandbox.OpDelete && r.Recursive:
		fmt.Fprintln(w, "  the directory and everything in it")
	case r.Op == sandbox.OpDelete:
		fmt.Fprintln(w, "  the file is removed")
	case r.Diff != "":
		fmt.Fprint(w, r.Diff)
	default:
		fmt.Fprintf(w, "  %d bytes → %d bytes (too large or binary to show)\n", r.OldBytes, r.NewBytes)
	}
	fmt.Fprintf(w, "Allow? [y/N] ")
	line, err := bufio.NewReader(io.LimitReader(p.In, 1<<10)).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(w)
		return Answer{Approved: false, Reason: "no answer"}, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Answer{Approved: true}, nil
	}
	return Answer{Approved: false, Reason: "answered no"}, nil
}

// diff renders a unified diff of a change, or "" when it cannot be shown.
func diff(c *sandbox.Change) string {
	if c.Op == sandbox.OpDelete {
		return ""
	}
	old, new, err := c.Contents()
	if err != nil || (new == nil && c.NewBytes > 0) || (old == nil && c.OldBytes > 0) {
		return ""
	}
	if bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(new, 0) >= 0 || !utf8.Valid(old) || !utf8.Valid(new) {
		return ""
	}
	from := "a" + c.Path
	if !c.Exists {
		from = "/dev/null"
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(old), B: splitLines(new),
		FromFile: from, ToFile: "b" + c.Path, Context: 3,
	})
	if err != nil || len(d) > MaxDiffBytes {
		return ""
	}
	return d
}

// splitLines splits after each newline, without difflib's extra empty line.
func splitLines(b []byte) []string {
	l := strings.SplitAfter(string(b), "\n")
	if l[len(l)-1] == "" {
		return l[:len(l)-1]
	}
	l[len(l)-1] += "\n" // a last line without one still prints on its own
	return l
}
