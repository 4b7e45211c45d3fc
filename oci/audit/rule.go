package audit

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Severity ranks how directly a setting leads to the host.
type Severity string

// The severities, from least to most severe.
const (
	Info     Severity = "info"
	Low      Severity = "low"
	Medium   Severity = "medium"
	High     Severity = "high"
	Critical Severity = "critical"
)

// Severities lists every severity, most severe first.
var Severities = []Severity{Critical, High, Medium, Low, Info}

// Rank orders severities: info 1 to critical 5, 0 for an unknown one.
func (s Severity) Rank() int {
	switch s {
	case Info:
		return 1
	case Low:
		return 2
	case Medium:
		return 3
	case High:
		return 4
	case Critical:
		return 5
	}
	return 0
}

// ParseSeverity reads a severity name (any case).
func ParseSeverity(s string) (Severity, error) {
	v := Severity(strings.ToLower(strings.TrimSpace(s)))
	if v.Rank() == 0 {
		return "", fmt.Errorf("unknown severity %q: use critical, high, medium, low or info", s)
	}
	return v, nil
}

// Rule is one check of the audit. The exported fields are the rule's
// documentation (docs/audit-rules.md, SARIF rule help).
type Rule struct {
	// ID is stable and never reused (GB101).
	ID string `json:"id"`
	// Name is a readable alias of the ID, accepted by --ignore.
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Title    string   `json:"title"`
	// Field names what the rule reads, in both formats.
	Field string `json:"field"`
	// Why says what an attacker gains.
	Why string `json:"why"`
	// Fix says what to change.
	Fix string `json:"fix"`
	// Refs are CIS Docker Benchmark sections, CVEs and other references.
	Refs []string `json:"references,omitempty"`
	// Implied rules are consequences of Docker's --privileged, which rule
	// GB101 reports once, so they are not repeated for such containers.
	Implied bool `json:"-"`

	check func(s *Subject) []Hit
}

// Hit is one place where a rule found its setting.
type Hit struct {
	Field   string
	Message string
}

func hit(field, format string, args ...any) []Hit {
	return []Hit{{Field: field, Message: fmt.Sprintf(format, args...)}}
}

// Finding is one rule that fired on one subject.
type Finding struct {
	RuleID   string   `json:"rule"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Title    string   `json:"title"`
	Field    string   `json:"field"`
	// Line is where Field (or its nearest parent) is in the input, 0 when
	// the input was not read from text.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	// Suppressed holds the reason from the suppression file, if any.
	Suppressed string `json:"suppressed,omitempty"`
}

// rules is the table, kept ordered by ID.
var rules []*Rule

// register adds rules to the table; called from the init of each rule file.
func register(rs ...*Rule) {
	rules = append(rules, rs...)
	slices.SortFunc(rules, func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
}

// Rules returns the rule table ordered by ID.
func Rules() []*Rule { return slices.Clone(rules) }

// Lookup finds a rule by ID or name (any case).
func Lookup(idOrName string) (*Rule, bool) {
	for _, r := range rules {
		if strings.EqualFold(r.ID, idOrName) || strings.EqualFold(r.Name, idOrName) {
			return r, true
		}
	}
	return nil, false
}

// Check runs every rule on s and returns its findings, most severe first.
func Check(s *Subject) []Finding {
	var out []Finding
	for _, r := range rules {
		if r.Implied && s.Privileged {
			continue
		}
		for _, h := range r.check(s) {
			out = append(out, Finding{RuleID: r.ID, Name: r.Name, Severity: r.Severity, Title: r.Title,
				Field: h.Field, Line: s.lineOf(h.Field), Message: h.Message, Fix: r.Fix})
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return b.Severity.Rank() - a.Severity.Rank() })
	return out
}

// under reports whether host path p is src or lies below it, that is
// whether binding src shows p.
func under(p, src string) bool {
	src = path.Clean(src)
	return src == "/" || p == src || strings.HasPrefix(p, src+"/")
}

// quoteList renders names for a message: "a, b and c".
func quoteList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
