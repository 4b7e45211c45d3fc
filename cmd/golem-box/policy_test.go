package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// approvalProject makes a project whose mounts need different consent, and
// returns its directory and the approval log's path.
func approvalProject(t *testing.T) (dir, log string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "project")
	for _, d := range []string{"drafts", "final", "src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "final/keep.md"), []byte("v1\n"), 0o644))
	cfg := `sandbox:
  root: .
  mounts:
    - source: drafts
      target: /drafts
      approval: {write: preApproved, delete: preApproved}
    - source: final
      target: /final
      approval: {delete: blocked}
      suffixes: [.md]
      max_file_bytes: 64
approval:
  log: ../log/approvals.jsonl
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "golem-box.yaml"), []byte(cfg), 0o644))
	return dir, filepath.Join(base, "log/approvals.jsonl")
}

type logEntry struct {
	Who, Op, Path, Mount, Setting, Approver, Reason string
	Approved                                        bool
	Time                                            time.Time
}

func readEntries(t *testing.T, path string) []logEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []logEntry
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e logEntry
		require.NoError(t, json.Unmarshal([]byte(l), &e), l)
		out = append(out, e)
	}
	return out
}

func TestApprovalsFromTheCommandLine(t *testing.T) {
	dir, log := approvalProject(t)
	final := filepath.Join(dir, "final")

	// ask, nobody to ask: refused, with how to approve; nothing written.
	r := gb(t, dir, "", "write", "/final/report.md", "--content", "draft\n")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `Cannot write "/final/report.md": it needs approval, and no approver is available.`)
	assert.Contains(t, r.stderr, "run the command again with --yes")
	assert.NoFileExists(t, filepath.Join(final, "report.md"))
	r = gb(t, dir, "", "edit", "/final/keep.md", "--old", "v1", "--new", "v2")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "it needs approval")

	// --yes approves for this command only.
	r = gb(t, dir, "", "write", "/final/report.md", "--content", "draft\n", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(final, "report.md"))

	// blocked stays blocked, whatever the approver says.
	r = gb(t, dir, "", "rm", "/final/report.md", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `Cannot delete "/final/report.md": blocked by policy.`)
	assert.Contains(t, r.stderr, "Paths where this is not blocked: /, /drafts.")
	assert.FileExists(t, filepath.Join(final, "report.md"))

	// Boundaries first: a suffix the mount refuses is never put to anyone.
	r = gb(t, dir, "", "write", "/final/x.txt", "--content", "x", "--yes")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "Allowed suffixes: .md")

	// preApproved needs nobody.
	r = gb(t, dir, "", "write", "/drafts/d.md", "--content", "d")
	require.Equal(t, 0, r.code, r.stderr)

	// An approval command reads the request and decides by its exit status.
	req := filepath.Join(t.TempDir(), "request.json")
	r = gb(t, dir, "", "edit", "/final/keep.md", "--old", "v1", "--new", "v2", "--approval-command", "cat > "+req)
	require.Equal(t, 0, r.code, r.stderr)
	var got map[string]any
	b, err := os.ReadFile(req)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "edit", got["op"])
	assert.Equal(t, "/final/keep.md", got["path"])
	assert.Equal(t, "--- a/final/keep.md\n+++ b/final/keep.md\n@@ -1 +1 @@\n-v1\n+v2\n", got["diff"])
	r = gb(t, dir, "", "edit", "/final/keep.md", "--old", "v2", "--new", "v3", "--approval-command", "echo 'not on a Friday'; exit 1")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "it was not approved.\ncommand: echo 'not on a Friday'; exit 1 said: not on a Friday. Nothing was edited.")
	k, _ := os.ReadFile(filepath.Join(final, "keep.md"))
	assert.Equal(t, "v2\n", string(k))

	// Every decision is in the log, in order.
	entries := readEntries(t, log)
	var summary []string
	for _, e := range entries {
		assert.Equal(t, "golem-box", e.Who)
		assert.WithinDuration(t, time.Now(), e.Time, time.Minute)
		summary = append(summary, strings.Join([]string{e.Op, e.Path, e.Setting, map[bool]string{true: "approved", false: "refused"}[e.Approved], e.Approver}, " "))
	}
	assert.Equal(t, []string{
		"write /final/report.md ask refused none",
		"edit /final/keep.md ask refused none",
		"write /final/report.md ask approved --yes",
		"delete /final/report.md blocked refused policy",
		"write /drafts/d.md preApproved approved policy",
		"edit /final/keep.md ask approved command: cat > " + req,
		"edit /final/keep.md ask refused command: echo 'not on a Friday'; exit 1",
	}, summary)
	assert.Equal(t, "not on a Friday", entries[6].Reason)
}

func TestApprovalCommandFromConfig(t *testing.T) {
	dir, log := approvalProject(t)
	script := filepath.Join(t.TempDir(), "approve.sh")
	// Approves writes of at most 3 bytes.
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\ngrep -q '\"new_bytes\":[0-3],' || { echo too long; exit 1; }\n"), 0o755))
	cfg, err := os.ReadFile(filepath.Join(dir, "golem-box.yaml"))
	require.NoError(t, err)
	cfg = append(cfg, []byte("  command: ["+script+"]\n")...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "golem-box.yaml"), cfg, 0o644))

	r := gb(t, dir, "", "write", "/final/a.md", "--content", "ok\n")
	require.Equal(t, 0, r.code, r.stderr)
	r = gb(t, dir, "", "write", "/final/b.md", "--content", "far too long\n")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "said: too long.")
	assert.NoFileExists(t, filepath.Join(dir, "final/b.md"))
	entries := readEntries(t, log)
	require.Len(t, entries, 2)
	assert.Equal(t, "command: "+script, entries[0].Approver)
}

// TestPromptOnATerminal runs golem-box with a pseudo-terminal as its
// controlling terminal and answers the prompt.
func TestPromptOnATerminal(t *testing.T) {
	dir, log := approvalProject(t)
	for _, answer := range []string{"y", "n"} {
		cmd := exec.Command(binary, "write", "/final/"+answer+".md", "--content", "hello\n")
		cmd.Dir = dir
		tty, err := pty.Start(cmd)
		require.NoError(t, err)
		seen := make(chan string, 1)
		go func() {
			var out strings.Builder
			br := bufio.NewReader(tty)
			for !strings.Contains(out.String(), "Allow? [y/N] ") {
				b, err := br.ReadByte()
				if err != nil {
					break
				}
				out.WriteByte(b)
			}
			seen <- out.String()
			io.WriteString(tty, answer+"\n")
			io.Copy(io.Discard, tty)
		}()
		var shown string
		select {
		case shown = <-seen:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatal("no prompt on the terminal")
		}
		err = cmd.Wait()
		tty.Close()
		assert.Contains(t, shown, "golem-box wants to write /final/"+answer+".md (mount /final)")
		assert.Contains(t, shown, "+hello")
		if answer == "y" {
			assert.NoError(t, err)
			assert.FileExists(t, filepath.Join(dir, "final/y.md"))
		} else {
			assert.Error(t, err)
			assert.NoFileExists(t, filepath.Join(dir, "final/n.md"))
		}
	}
	entries := readEntries(t, log)
	require.Len(t, entries, 2)
	assert.Equal(t, []bool{true, false}, []bool{entries[0].Approved, entries[1].Approved})
	assert.Equal(t, "terminal", entries[0].Approver)
}

// workerProject is a project and a chain of three workers:
// main (everything) → analyst (data read-only, out) → writer (out).
func workerProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "project")
	for _, d := range []string{"data", "out", "src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for f, c := range map[string]string{
		"data/in.csv":    "a,b\n1,2\n",
		"data/notes.txt": "notes\n",
		"src/app.go":     "package app\n",
		"golem-box.yaml": "sandbox:\n  root: .\n  mounts:\n    - {source: data, target: /data, name: data, suffixes: [.csv]}\n    - {source: out, target: /out, name: out, approval: {write: preApproved}}\napproval:\n  log: ../approvals.jsonl\n",
		"main.worker":    "---\nname: main\ndescription: plans the work\nsandbox: {}\n---\nPlan.\n",
		"analyst.worker": "---\nname: analyst\ndescription: reads data, writes results\nsandbox:\n  mounts:\n    - {name: data, readonly: true}\n    - {name: out}\n---\nAnalyse.\n",
		"writer.worker":  "---\nname: writer\ndescription: writes the report\nsandbox:\n  mounts:\n    - name: out\n---\nWrite.\n",
		"greedy.worker":  "---\nname: greedy\nsandbox:\n  mounts:\n    - {name: data, readonly: false}\n---\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644))
	}
	return dir
}

func TestWorkerCheckThreeLevels(t *testing.T) {
	dir := workerProject(t)
	chain := []string{"worker", "check", "writer.worker", "--parent", "main.worker", "--parent", "analyst.worker"}
	r := gb(t, dir, "", chain...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "chain:    the project → main → analyst → writer (depth 2 of at most 5)\n")
	analyst := r.stdout[strings.Index(r.stdout, "analyst (analyst.worker), depth 1:"):strings.Index(r.stdout, "writer (writer.worker)")]
	assert.Regexp(t, `(?m)^  /data +ro  \S+/data  \(data\)  suffixes: \.csv$`, analyst)
	assert.Regexp(t, `(?m)^  /out +rw  \S+/out  \(out\)  write: preApproved, delete: ask$`, analyst)
	writer := r.stdout[strings.Index(r.stdout, "writer (writer.worker), depth 2: effective sandbox"):]
	assert.Equal(t, 2, strings.Count(writer, "\n"), writer)
	assert.Regexp(t, `(?m)^  /out +rw  \S+/out  \(out\)`, writer)

	r = gb(t, dir, "", append([]string{"-o", "json"}, chain...)...)
	require.Equal(t, 0, r.code, r.stderr)
	var out struct {
		MaxDepth int `json:"max_depth"`
		Levels   []struct {
			Name    string
			Depth   int
			Sandbox *struct {
				Root   string
				Mounts []struct {
					Target   string
					ReadOnly bool
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out.Levels, 4)
	assert.Equal(t, 5, out.MaxDepth)
	assert.Equal(t, []string{"", "main", "analyst", "writer"}, []string{out.Levels[0].Name, out.Levels[1].Name, out.Levels[2].Name, out.Levels[3].Name})
	assert.Equal(t, "", out.Levels[3].Sandbox.Root)
	require.Len(t, out.Levels[3].Sandbox.Mounts, 1)
	assert.Equal(t, "/out", out.Levels[3].Sandbox.Mounts[0].Target)

	// Asking for more than the caller has: exit 2, both sides named.
	r = gb(t, dir, "", "worker", "check", "greedy.worker", "--parent", "main.worker", "--parent", "analyst.worker")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `greedy.worker:5: sandbox.mounts[0].readonly: worker "greedy" asks for read-write on mount "data" (/data), but worker "analyst" (analyst.worker) has it read-only`)
	// A pure function.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pure.worker"), []byte("---\ndescription: no files\n---\n"), 0o644))
	r = gb(t, dir, "", "worker", "check", "pure.worker", "--parent", "main.worker")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "pure (pure.worker), depth 1: effective sandbox\n  (none: no file access)\n")
	// Too deep.
	r = gb(t, dir, "", "worker", "check", "writer.worker", "--parent", "main.worker", "--parent", "main.worker", "--parent", "main.worker", "--parent", "main.worker", "--parent", "main.worker", "--parent", "analyst.worker")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "delegation.max_depth: the chain main → main → main → main → main → analyst → writer is 6 calls deep; the limit is 5")
}

func TestWorkerCheckAttachments(t *testing.T) {
	dir := workerProject(t)
	check := []string{"worker", "check", "writer.worker", "--parent", "main.worker", "--parent", "analyst.worker"}
	r := gb(t, dir, "", append(check, "--attach", "/data/in.csv")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "attachments (readable by analyst):\n  /data/in.csv         8 bytes  text/plain; charset=utf-8\n")

	for _, tc := range []struct{ path, want string }{
		{"/src/app.go", "Cannot attach \"/src/app.go\": path is outside the sandbox.\nReadable paths: /data, /out"},
		{"/data/notes.txt", "Cannot attach \"/data/notes.txt\": suffix not allowed.\nAllowed suffixes: .csv"},
		{"/data/missing.csv", "Cannot attach \"/data/missing.csv\": file does not exist."},
	} {
		r = gb(t, dir, "", append(check, "--attach", tc.path)...)
		assert.Equal(t, 1, r.code, tc.path)
		assert.Contains(t, r.stderr, tc.want)
	}
	// The entry worker's caller is the project.
	r = gb(t, dir, "", "worker", "check", "main.worker", "--attach", "/src/app.go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "attachments (readable by the project):")
}

func TestFileToolsActAsAWorker(t *testing.T) {
	dir := workerProject(t)
	as := []string{"--worker", "writer.worker", "--parent", "main.worker", "--parent", "analyst.worker"}
	r := gb(t, dir, "", append(as, "read", "/data/in.csv")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "Cannot read \"/data/in.csv\": path is outside the sandbox.\nReadable paths: /out")
	r = gb(t, dir, "", append(as, "write", "/out/report.md", "--content", "done\n")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(dir, "out/report.md"))
	entries := readEntries(t, filepath.Join(filepath.Dir(dir), "approvals.jsonl"))
	require.Len(t, entries, 1)
	assert.Equal(t, "writer", entries[0].Who)
	assert.Equal(t, "policy", entries[0].Approver)

	// The analyst reads data but cannot change it.
	as = []string{"--worker", "analyst.worker", "--parent", "main.worker"}
	r = gb(t, dir, "", append(as, "read", "/data/in.csv")...)
	require.Equal(t, 0, r.code, r.stderr)
	r = gb(t, dir, "", append(as, "write", "/data/in.csv", "--content", "x", "--yes")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "Cannot write \"/data/in.csv\": path is read-only.\nWritable paths: /out")
	// A pure function sees nothing.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pure.worker"), []byte("---\ndescription: no files\n---\n"), 0o644))
	r = gb(t, dir, "", "--worker", "pure.worker", "ls", "/")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "Readable paths: none")
}

// TestRunHintsTheBoundary: a command that fails on a sandbox boundary gets
// a note saying which one, from the real error of a real run.
func TestRunHintsTheBoundary(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ro"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "golem-box.yaml"),
		[]byte("sandbox:\n  root: .\n  backend: bwrap\n  mounts:\n    - {source: ro, target: /ro, readonly: true}\n"), 0o644))
	r := gb(t, dir, "", "run", "--", "sh", "-c", "echo x > /ro/f")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "Read-only file system")
	assert.Contains(t, r.stderr, "golem-box: note: Writable paths of this sandbox: /. Everything else is read-only or not there.\n")
	assert.NotContains(t, r.stderr, "Network")

	r = gb(t, dir, "", "run", "--", "bash", "-c", "exec 3<>/dev/tcp/192.0.2.1/80")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "Network is unreachable")
	assert.Contains(t, r.stderr, "golem-box: note: Network access is disabled for this sandbox (network: false)")

	r = gb(t, dir, "", "-o", "json", "run", "--", "sh", "-c", "echo x > /ro/f")
	var res struct{ Hints []string }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.Len(t, res.Hints, 1)

	// A command that succeeds gets no notes, whatever it prints.
	r = gb(t, dir, "", "run", "--", "sh", "-c", "echo 'Permission denied' >&2")
	assert.Equal(t, 0, r.code)
	assert.NotContains(t, r.stderr, "note:")
}

// TestDefaultLogOutOfEveryWorkersReach: acting as a worker that cannot
// write the project's root does not make the root a place for the log.
func TestDefaultLogOutOfEveryWorkersReach(t *testing.T) {
	dir := workerProject(t)
	cfg := "sandbox:\n  root: .\n  mounts:\n    - {source: out, target: /out, name: out, approval: {write: preApproved}}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "golem-box.yaml"), []byte(cfg), 0o644))
	cmd := exec.Command(binary, "--worker", "writer.worker", "write", "/out/r.md", "--content", "x")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "is inside the writable mount /, so a worker could rewrite the record of its own approvals")
	assert.NoFileExists(t, filepath.Join(dir, "out/r.md"))
}
