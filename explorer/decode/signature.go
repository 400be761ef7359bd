package decode

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// parseSignature reads "name(type [indexed] [name], …)" with tuple types
// spelled "(type name, …)[]", as in table.go.
func parseSignature(s string) (string, abi.Arguments, error) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return "", nil, fmt.Errorf("not name(params)")
	}
	params, err := splitParams(s[open+1 : len(s)-1])
	if err != nil {
		return "", nil, err
	}
	var args abi.Arguments
	for _, p := range params {
		m, indexed, err := parseParam(p)
		if err != nil {
			return "", nil, err
		}
		t, err := abi.NewType(m.Type, m.InternalType, m.Components)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", p, err)
		}
		args = append(args, abi.Argument{Name: m.Name, Type: t, Indexed: indexed})
	}
	return s[:open], args, nil
}

// splitParams splits at the commas outside parentheses.
func splitParams(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced parentheses")
			}
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced parentheses")
	}
	return append(out, strings.TrimSpace(s[start:])), nil
}

// parseParam reads "type [indexed] [name]"; a tuple type becomes "tuple"
// (with its array suffix) and components.
func parseParam(p string) (abi.ArgumentMarshaling, bool, error) {
	var m abi.ArgumentMarshaling
	rest := p
	if strings.HasPrefix(p, "(") {
		depth := 0
		end := -1
		for i, c := range p {
			if c == '(' {
				depth++
			} else if c == ')' {
				depth--
				if depth == 0 {
					end = i
					break
				}
			}
		}
		if end < 0 {
			return m, false, fmt.Errorf("%s: unbalanced tuple", p)
		}
		inner, err := splitParams(p[1:end])
		if err != nil {
			return m, false, err
		}
		for _, ip := range inner {
			c, _, err := parseParam(ip)
			if err != nil {
				return m, false, err
			}
			m.Components = append(m.Components, c)
		}
		suffix, after, _ := strings.Cut(p[end+1:], " ")
		m.Type = "tuple" + suffix
		rest = after
	} else {
		typ, after, _ := strings.Cut(p, " ")
		m.Type, rest = typ, after
	}
	fields := strings.Fields(rest)
	indexed := false
	if len(fields) > 0 && fields[0] == "indexed" {
		indexed, fields = true, fields[1:]
	}
	switch len(fields) {
	case 0:
	case 1:
		m.Name = fields[0]
	default:
		return m, false, fmt.Errorf("%s: too many words", p)
	}
	return m, indexed, nil
}
