package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/golem-box/golem-box/mountspec"
	"go.yaml.in/yaml/v3"
)

// WorkerExt is the extension of worker files.
const WorkerExt = ".worker"

// MaxWorkerBytes bounds a worker file; larger files are refused unread.
const MaxWorkerBytes = 1 << 20

// Worker is a worker file: who the worker is and what it needs.
type Worker struct {
	// Name identifies the worker in errors and the approval log.
	Name string `json:"name"`
	// Description says what it does.
	Description string `json:"description,omitempty"`
	// File is the file it was read from.
	File string `json:"file,omitempty"`
	// Sandbox is what it declares it needs; nil means no file access (a pure
	// function).
	Sandbox *Declaration `json:"sandbox"`
	// Instructions is the Markdown after the front matter.
	Instructions string `json:"-"`

	lines map[string]int // field path → line, for errors
}

// Declaration is a worker's sandbox: section. Restrict and ReadOnly are the
// mount model's sub-worker form (seed 000); Mounts ask for named mounts, the
// zones of seed 002. With neither Restrict nor Mounts the worker asks for
// all its parent has, read-only if ReadOnly says so.
type Declaration struct {
	// Restrict is the virtual subtree wanted, such as "/src".
	Restrict string `json:"restrict,omitempty" yaml:"restrict,omitempty"`
	// ReadOnly true makes everything read-only; false asks for read-write
	// wherever it is not overridden; unset inherits the parent's modes.
	ReadOnly *bool `json:"readonly,omitempty" yaml:"readonly,omitempty"`
	// Mounts are named mounts of the parent wanted as well.
	Mounts []MountRequest `json:"mounts,omitempty" yaml:"mounts,omitempty"`
}

// MountRequest asks for a named mount.
type MountRequest struct {
	Name string `json:"name" yaml:"name"`
	// ReadOnly as in Declaration, for this mount; unset takes the
	// declaration's.
	ReadOnly *bool `json:"readonly,omitempty" yaml:"readonly,omitempty"`
}

// LoadWorker reads and parses a worker file.
func LoadWorker(file string) (*Worker, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &mountspec.ConfigError{File: file, Msg: err.Error(), Fix: "check the path of the worker file"}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxWorkerBytes+1))
	if err != nil {
		return nil, &mountspec.ConfigError{File: file, Msg: err.Error()}
	}
	if len(data) > MaxWorkerBytes {
		return nil, &mountspec.ConfigError{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", MaxWorkerBytes),
			Fix: "a worker file is front matter and instructions; check that this is the right file"}
	}
	return ParseWorker(data, file)
}

// ParseWorker parses a worker file's content: "---", YAML front matter,
// "---", then Markdown. Fields of the front matter that golem-box does not
// use (model, tools, ...) belong to the agent runtime and are left alone;
// the sandbox: section is checked strictly.
func ParseWorker(data []byte, file string) (*Worker, error) {
	bad := func(line int, field, msg, fix string) error {
		return &mountspec.ConfigError{File: file, Line: line, Field: field, Msg: msg, Fix: fix}
	}
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))), "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\n") != "---" {
		return nil, bad(1, "", "does not start with front matter", `begin the file with a line "---", the YAML fields (name, description, sandbox), and another "---"`)
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimRight(lines[i], " \t\n"); t == "---" || t == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		last := len(lines)
		if lines[last-1] == "" {
			last--
		}
		return nil, bad(last, "", "the front matter is not closed", `end it with a line "---" before the instructions`)
	}
	// A blank first line keeps the YAML parser's line numbers those of the file.
	front := "\n" + strings.Join(lines[1:end], "")
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		return nil, bad(0, "", err.Error(), "correct the YAML of the front matter")
	}
	w := &Worker{File: file, Instructions: strings.Join(lines[end+1:], ""), lines: map[string]int{}}
	if doc.Kind == 0 {
		return nil, bad(1, "", "the front matter is empty", "give at least name: and description:")
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, bad(top.Line, "", "the front matter must be a mapping of fields", "write name:, description: and sandbox: on their own lines")
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		w.lines[k.Value] = k.Line
		switch k.Value {
		case "name", "description":
			if v.Kind != yaml.ScalarNode {
				return nil, bad(k.Line, k.Value, "must be a string", "write it on one line")
			}
			if k.Value == "name" {
				w.Name = v.Value
			} else {
				w.Description = v.Value
			}
		case "sandbox":
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue // "sandbox:" with nothing under it declares nothing
			}
			d := &Declaration{}
			l, err := mountspec.DecodeNode(v, file, "sandbox", d)
			if err != nil {
				return nil, err
			}
			for f, n := range l {
				w.lines[f] = n
			}
			w.Sandbox = d
		}
	}
	base := filepath.Base(file)
	stem, isWorker := strings.CutSuffix(base, WorkerExt)
	switch {
	case w.Name == "" && isWorker:
		w.Name = stem
	case w.Name == "":
		return nil, bad(1, "name", "is missing", "add name: NAME, or name the file NAME"+WorkerExt)
	case isWorker && w.Name != stem:
		return nil, bad(w.lines["name"], "name", fmt.Sprintf("%q differs from the file name %s", w.Name, base),
			fmt.Sprintf("rename the file %s%s or write name: %s", w.Name, WorkerExt, stem))
	}
	if !mountspec.ValidName(w.Name) {
		return nil, bad(w.lines["name"], "name", fmt.Sprintf("%q is not a worker name", w.Name), "use letters, digits, '-', '_' or '.'")
	}
	if err := w.checkDeclaration(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Worker) checkDeclaration() error {
	d := w.Sandbox
	if d == nil {
		return nil
	}
	var errs []error
	bad := func(field, msg, fix string) {
		errs = append(errs, &mountspec.ConfigError{File: w.File, Line: w.lines[field], Field: field, Msg: msg, Fix: fix})
	}
	if d.Restrict != "" {
		v, err := mountspec.CleanVirtual(d.Restrict)
		switch {
		case err != nil:
			bad("sandbox.restrict", fmt.Sprintf("%q is not a path in the sandbox: %v", d.Restrict, err), `write an absolute virtual path such as "/src"`)
		case !strings.HasPrefix(d.Restrict, "/"):
			bad("sandbox.restrict", fmt.Sprintf("must be absolute, got %q", d.Restrict), fmt.Sprintf("write %q", v))
		default:
			d.Restrict = v
		}
	}
	seen := map[string]bool{}
	for i, m := range d.Mounts {
		f := fmt.Sprintf("sandbox.mounts[%d].name", i)
		switch {
		case m.Name == "":
			bad(f, "is empty", "give the name of a mount of the project (sandbox.mounts[].name or a zone)")
		case !mountspec.ValidName(m.Name):
			bad(f, fmt.Sprintf("%q is not a mount name", m.Name), "use letters, digits, '-', '_' or '.'")
		case seen[m.Name]:
			bad(f, fmt.Sprintf("%q is asked for twice", m.Name), "list each mount once")
		}
		seen[m.Name] = true
	}
	return errors.Join(errs...)
}
