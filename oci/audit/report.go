package audit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Options say which findings the report keeps.
type Options struct {
	// Ignore lists rule IDs or names to skip entirely.
	Ignore []string
	// Suppressions mark findings as accepted, with a reason; they stay in
	// the JSON and SARIF outputs, marked, and do not count for Fails.
	Suppressions []Suppression
}

// Suppression accepts the findings of one rule, on all targets or on those
// matching a pattern.
type Suppression struct {
	// Rule is a rule ID or name.
	Rule string `yaml:"rule" json:"rule"`
	// Target is a path.Match pattern on the input's path, its file name or
	// the container's name; empty for all.
	Target string `yaml:"target,omitempty" json:"target,omitempty"`
	// Reason says why the finding is accepted; required.
	Reason string `yaml:"reason" json:"reason"`
}

// Result is the audit of one subject.
type Result struct {
	Target   string    `json:"target"`
	Format   Format    `json:"format"`
	Name     string    `json:"name,omitempty"`
	Findings []Finding `json:"findings"`
}

// Report is the audit of every input; WriteJSON gives its JSON form.
type Report struct {
	Results []Result
	// Errors are the inputs that could not be audited.
	Errors []*InputError
	// Ignored are the rule IDs skipped by Options.Ignore.
	Ignored []string
}

// Validate checks that every rule the options name exists.
func (o Options) Validate() error {
	var errs []error
	for _, id := range o.Ignore {
		if _, ok := Lookup(id); !ok {
			errs = append(errs, fmt.Errorf("--ignore %s: no such rule (golem-box audit --list-rules lists them)", id))
		}
	}
	for i, s := range o.Suppressions {
		if _, ok := Lookup(s.Rule); !ok {
			errs = append(errs, fmt.Errorf("suppressions[%d].rule: no such rule %q", i, s.Rule))
		}
	}
	return errors.Join(errs...)
}

// Add audits the subjects and appends their results.
func (r *Report) Add(o Options, subjects ...*Subject) {
	ignored := map[string]bool{}
	for _, id := range o.Ignore {
		if rule, ok := Lookup(id); ok {
			ignored[rule.ID] = true
		}
	}
	r.Ignored = r.Ignored[:0]
	for _, rule := range Rules() {
		if ignored[rule.ID] {
			r.Ignored = append(r.Ignored, rule.ID)
		}
	}
	for _, s := range subjects {
		res := Result{Target: s.Target, Format: s.Format, Name: s.Name, Findings: []Finding{}}
		for _, f := range Check(s) {
			if ignored[f.RuleID] {
				continue
			}
			for _, sup := range o.Suppressions {
				if rule, _ := Lookup(sup.Rule); rule != nil && rule.ID == f.RuleID && matchTarget(sup.Target, s) {
					f.Suppressed = sup.Reason
					break
				}
			}
			res.Findings = append(res.Findings, f)
		}
		r.Results = append(r.Results, res)
	}
}

func matchTarget(pattern string, s *Subject) bool {
	if pattern == "" {
		return true
	}
	// The pattern may name the input as given, its file name, or the
	// container: jobs/*.json, ci-*.json, ci-runner-*.
	file := s.Target
	if i := strings.LastIndex(file, "["); i > 0 && strings.HasSuffix(file, "]") {
		file = file[:i]
	}
	for _, name := range []string{s.Target, file, path.Base(file), s.Name} {
		if ok, _ := path.Match(pattern, name); ok && name != "" {
			return true
		}
	}
	return false
}

// Counts returns the number of findings per severity, suppressed ones
// apart.
func (r *Report) Counts() (active map[Severity]int, suppressed int) {
	active = map[Severity]int{}
	for _, res := range r.Results {
		for _, f := range res.Findings {
			if f.Suppressed != "" {
				suppressed++
			} else {
				active[f.Severity]++
			}
		}
	}
	return active, suppressed
}

// Fails reports whether a finding that is not suppressed is at least as
// severe as min.
func (r *Report) Fails(min Severity) bool {
	active, _ := r.Counts()
	for sev, n := range active {
		if n > 0 && sev.Rank() >= min.Rank() {
			return true
		}
	}
	return false
}

// LoadSuppressions reads a suppression file:
//
//	suppress:
//	  - rule: GB501
//	    target: "jobs/*.json"   # optional
//	    reason: batch jobs are bounded by the scheduler's cgroup
func LoadSuppressions(file string) ([]Suppression, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("suppression file: %w", err)
	}
	var doc struct {
		Suppress []yaml.Node `yaml:"suppress"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v (expected a list under suppress: with rule, reason and optional target)", file, err)
	}
	var out []Suppression
	var errs []error
	for i, n := range doc.Suppress {
		var s Suppression
		at := fmt.Sprintf("%s:%d: suppress[%d]", file, n.Line, i)
		if err := checkSuppression(n); err != nil {
			errs = append(errs, fmt.Errorf("%s%v", at, err))
			continue
		}
		if err := n.Decode(&s); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", at, err))
			continue
		}
		switch _, known := Lookup(s.Rule); {
		case s.Rule == "":
			errs = append(errs, fmt.Errorf("%s.rule: required: the rule ID (GB501) or name whose findings are accepted", at))
		case !known:
			errs = append(errs, fmt.Errorf("%s.rule: no such rule %q: golem-box audit --list-rules lists them", at, s.Rule))
		case strings.TrimSpace(s.Reason) == "":
			errs = append(errs, fmt.Errorf("%s.reason: required: say why this finding is accepted, for the next reviewer", at))
		}
		if _, err := path.Match(s.Target, ""); err != nil {
			errs = append(errs, fmt.Errorf("%s.target: bad pattern %q: %v", at, s.Target, err))
		}
		out = append(out, s)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// checkSuppression refuses keys that a typo would silently ignore.
func checkSuppression(n yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return errors.New(": must be a mapping with rule and reason")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "rule", "target", "reason":
		default:
			return fmt.Errorf(".%s: unknown key: use rule, target and reason", k)
		}
	}
	return nil
}
