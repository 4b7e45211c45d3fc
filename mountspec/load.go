package mountspec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// MaxConfigBytes bounds a configuration file; anything larger is refused
// before it is parsed.
const MaxConfigBytes = 1 << 20

// ErrNoConfig is returned by Find when no golem-box.yaml exists between the
// start directory and "/".
var ErrNoConfig = errors.New("no " + FileName + " found")

// Find looks for golem-box.yaml in dir and then in each parent, as git looks
// for .git, and returns its absolute path.
func Find(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	start := d
	for {
		p := filepath.Join(d, FileName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%w in %s or any parent directory", ErrNoConfig, start)
		}
		d = parent
	}
}

// Load reads, parses and validates a configuration file. Relative paths in it
// are relative to the file's directory.
func Load(file string) (*Config, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &ConfigError{File: file, Msg: err.Error(), Fix: "check the path given to --config"}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, &ConfigError{File: file, Msg: err.Error()}
	}
	if len(data) > MaxConfigBytes {
		return nil, &ConfigError{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", MaxConfigBytes), Fix: "a sandbox description is a few lines; check that this is the right file"}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	return Parse(data, abs)
}

// Parse parses and validates configuration data as if it had been read from
// file (whose directory anchors relative paths).
func Parse(data []byte, file string) (*Config, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, yamlError(file, err, nil)
	}
	cfg := &Config{Sandbox: Default()}
	o := &origin{file: file, lines: map[string]int{}}
	if doc.Kind == 0 { // empty document: no sandbox, no file access
		return cfg, nil
	}
	var errs []error
	mapLines(&doc, "", o.lines)
	checkKnown(&doc, reflect.TypeOf(Config{}), "", o, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := doc.Decode(cfg); err != nil {
		return nil, yamlError(file, err, o.lines)
	}
	if err := cfg.Sandbox.normalize(filepath.Dir(file), o); err != nil {
		return nil, err
	}
	if err := cfg.normalizeTop(filepath.Dir(file), o); err != nil {
		return nil, err
	}
	return cfg, nil
}

// MaxDelegationDepth bounds delegation.max_depth.
const MaxDelegationDepth = 100

// normalizeTop checks the sections beside sandbox: and makes approval.log
// absolute against base.
func (c *Config) normalizeTop(base string, o *origin) error {
	var errs []error
	if d := c.Delegation.MaxDepth; d != nil && (*d < 0 || *d > MaxDelegationDepth) {
		errs = append(errs, o.err("delegation.max_depth", fmt.Sprintf("must be between 0 and %d, got %d", MaxDelegationDepth, *d),
			fmt.Sprintf("write how many calls deep workers may go (default %d; 0 forbids delegation)", DefaultMaxDepth)))
	}
	if cmd := c.Approval.Command; cmd != nil && (len(cmd) == 0 || cmd[len(cmd)-1] == "" || cmd[0] == "") {
		errs = append(errs, o.err("approval.command", "is empty", "give the program that approves (exit status 0) or refuses a change, or remove the field"))
	}
	if l := c.Approval.Log; l != "" {
		p, err := expand(l)
		if err == nil && strings.IndexByte(p, 0) >= 0 {
			err = errors.New("contains a NUL byte")
		}
		if err != nil {
			errs = append(errs, o.err("approval.log", err.Error(), "write the path of the log file out"))
		} else {
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			c.Approval.Log = filepath.Clean(p)
			if m := c.Sandbox.WritableHolder(c.Approval.Log); m != "" {
				errs = append(errs, o.err("approval.log", fmt.Sprintf("%s is inside the writable mount %s, so a worker could rewrite the record of its own approvals", c.Approval.Log, m),
					"put the log outside every writable mount, such as ~/.local/state/golem-box/approvals.jsonl"))
			}
		}
	}
	return errors.Join(errs...)
}

// WritableHolder returns the virtual target of a writable mount whose
// source contains host path p (links resolved as far as p exists), or "".
func (s *Sandbox) WritableHolder(p string) string {
	p = realExisting(p)
	if s.Root != "" && !s.ReadOnly && within(p, realExisting(s.Root)) {
		return "/"
	}
	for _, m := range s.Mounts {
		if !m.ReadOnly && within(p, realExisting(m.Source)) {
			return m.Target
		}
	}
	return ""
}

// realExisting resolves symbolic links in the longest existing prefix of p.
func realExisting(p string) string {
	rest := ""
	for d := p; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// DecodeNode decodes one YAML node into v the way Load decodes
// golem-box.yaml: a field v does not have is an error naming the file, the
// line, the field path (under field) and the fields that exist. It returns
// the line of every field path, for later errors. Other packages use it for
// the sections they own, such as a worker file's sandbox: declaration.
func DecodeNode(n *yaml.Node, file, field string, v any) (map[string]int, error) {
	o := &origin{file: file, lines: map[string]int{}}
	if field != "" {
		o.lines[field] = n.Line
	}
	mapLines(n, field, o.lines)
	var errs []error
	checkKnown(n, reflect.TypeOf(v).Elem(), field, o, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := n.Decode(v); err != nil {
		return nil, yamlError(file, err, o.lines)
	}
	return o.lines, nil
}

// origin says where a sandbox came from, so that errors can point at it.
type origin struct {
	file  string
	lines map[string]int // field path → line
}

func (o *origin) err(field, msg, fix string) *ConfigError {
	e := &ConfigError{Field: field, Msg: msg, Fix: fix}
	if o != nil {
		e.File = o.file
		e.Line = o.lines[field]
	}
	return e
}

// mapLines records the line of every field path in the document.
func mapLines(n *yaml.Node, path string, lines map[string]int) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			mapLines(c, path, lines)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			lines[p] = n.Content[i].Line
			mapLines(n.Content[i+1], p, lines)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			lines[p] = c.Line
			mapLines(c, p, lines)
		}
	}
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// checkKnown reports keys that no field of t accepts, with the keys it does.
func checkKnown(n *yaml.Node, t reflect.Type, path string, o *origin, errs *[]error) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			checkKnown(c, t, path, o, errs)
		}
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return // the type parses itself and reports its own errors
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
				return
			}
			*errs = append(*errs, &ConfigError{File: o.file, Line: n.Line, Field: orTop(path), Msg: fmt.Sprintf("must be a mapping of fields, got %q", n.Value), Fix: "write the fields below it, indented"})
			return
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if tag != "" && tag != "-" {
				fields[tag] = t.Field(i).Type
				names = append(names, tag)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := k.Value
			if path != "" {
				p = path + "." + p
			}
			ft, ok := fields[k.Value]
			if !ok {
				*errs = append(*errs, &ConfigError{File: o.file, Line: k.Line, Field: p, Msg: "unknown field", Fix: "use one of: " + strings.Join(names, ", ")})
				continue
			}
			checkKnown(n.Content[i+1], ft, p, o, errs)
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				checkKnown(c, t.Elem(), path+"["+strconv.Itoa(i)+"]", o, errs)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				checkKnown(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value, o, errs)
			}
		}
	}
}

func orTop(p string) string {
	if p == "" {
		return "(top level)"
	}
	return p
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })

// yamlError turns the YAML library's errors into ConfigErrors with lines and,
// where the line holds one field, its path.
func yamlError(file string, err error, lines map[string]int) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var errs []error
	for _, m := range msgs {
		e := &ConfigError{File: file, Msg: m, Fix: "correct the YAML at that line"}
		if sub := yamlLine().FindStringSubmatch(m); sub != nil {
			e.Line, _ = strconv.Atoi(sub[1])
			e.Msg = sub[2]
			for f, l := range lines {
				if l == e.Line && (len(f) > len(e.Field) || len(f) == len(e.Field) && f < e.Field) {
					e.Field = f
				}
			}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// Validate normalises a sandbox built in code (relative paths are taken from
// the working directory) and checks it as Load does.
func (s *Sandbox) Validate() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	return s.normalize(wd, nil)
}

// normalize turns zones into mounts, expands and absolutises host paths
// against base, and runs every check, returning all the problems at once.
func (s *Sandbox) normalize(base string, o *origin) error {
	var errs []error
	add := func(e *ConfigError) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	if s.Root != "" {
		p, e := hostPath(s.Root, base, o, "sandbox.root")
		add(e)
		s.Root = p
	}
	// Zones become named mounts at /<name>, in name order for determinism.
	names := make([]string, 0, len(s.Zones))
	for n := range s.Zones {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		z := s.Zones[n]
		f := "sandbox.zones." + n
		if !ValidName(n) {
			add(o.err(f, fmt.Sprintf("zone name %q is not a single path component", n), "use letters, digits, '-', '_' or '.'"))
			continue
		}
		ro := false
		switch z.Mode {
		case "", ZoneRW:
		case ZoneRO:
			ro = true
		default:
			add(o.err(f+".mode", fmt.Sprintf("unknown mode %q", z.Mode), `write "ro" or "rw"`))
		}
		s.Mounts = append(s.Mounts, Mount{Source: z.Path, Target: "/" + n, ReadOnly: ro, Name: n,
			Approval: z.Approval, Suffixes: z.Suffixes, MaxFileBytes: z.MaxFileBytes, from: f + ".path"})
	}
	s.Zones = nil
	for i := range s.Mounts {
		m := &s.Mounts[i]
		f := fmt.Sprintf("sandbox.mounts[%d]", i)
		if m.from != "" {
			f = m.from
		}
		if m.Source == "" {
			add(o.err(f+".source", "is empty", "give the host directory to mount"))
		} else {
			p, e := hostPath(m.Source, base, o, f+".source")
			add(e)
			m.Source = p
		}
		add(checkTarget(m.Target, o, f+".target"))
		if m.Name != "" && !ValidName(m.Name) {
			add(o.err(f+".name", fmt.Sprintf("%q is not a valid name", m.Name), "use letters, digits, '-', '_' or '.'"))
		}
	}
	for _, c := range checks {
		for _, e := range c(s, o) {
			add(e)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for i := range s.Mounts {
		s.Mounts[i].from = ""
	}
	return nil
}

// hostPath expands ~ and $VARS in a host path, makes it absolute against base,
// and checks that it is an existing directory.
func hostPath(raw, base string, o *origin, field string) (string, *ConfigError) {
	p, err := expand(raw)
	if err != nil {
		return raw, o.err(field, err.Error(), "set the variable or write the path out")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return raw, o.err(field, "contains a NUL byte", "write a plain path")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return p, o.err(field, fmt.Sprintf("%s does not exist", p), "create it (mkdir -p "+shellQuote(p)+") or correct the path")
	case err != nil:
		return p, o.err(field, err.Error(), "make it readable by this user")
	case !fi.IsDir():
		return p, o.err(field, fmt.Sprintf("%s is not a directory", p), "mount the directory that contains it")
	}
	return p, nil
}

// expand replaces a leading ~ with the home directory and $VAR or ${VAR}
// with the environment; an unset variable is an error, never "".
func expand(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %v", err)
		}
		p = home + p[1:]
	}
	var missing []string
	p = os.Expand(p, func(k string) string {
		v, ok := os.LookupEnv(k)
		if !ok {
			missing = append(missing, k)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable $%s is not set", missing[0])
	}
	return p, nil
}

// ValidName reports whether n can name a mount, a zone or a worker: one path
// component of letters, digits, "-", "_" and ".".
func ValidName(n string) bool {
	if n == "" || n == "." || n == ".." || len(n) > MaxComponentBytes {
		return false
	}
	for _, r := range n {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"$`\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
