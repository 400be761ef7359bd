// Package sqlstore implements explorer.Store on SQL databases through
// database/sql. The SQL is kept portable (SQLite 3.35+ and PostgreSQL both
// accept it: ON CONFLICT upserts, no engine-specific functions); what differs
// per engine — the column types of wei amounts and byte strings, placeholder
// syntax, the driver — lives in a dialect.
package sqlstore

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// dialect is what one database engine needs spelled its own way.
type dialect struct {
	name   string
	driver string // database/sql driver name
	// types replaces the {{wei}} and {{bytes}} placeholders of the schema.
	types *strings.Replacer
	// encodeWei and decodeWei convert a non-negative amount to and from its
	// column value, which must sort numerically (see sqliteWei).
	encodeWei func(*big.Int) any
	decodeWei func(string) (*big.Int, error)
	// rebind turns the ? placeholders the queries are written with into the
	// engine's own.
	rebind func(string) string
}

// weiDigits is the length of the largest uint256 in decimal: every amount
// fits.
const weiDigits = 78

// sqlite stores amounts as TEXT of exactly 78 zero-padded decimal digits, so
// that comparing and ORDER BY on the text is comparing the numbers: SQLite's
// own numbers are 64-bit integers or doubles and would lose wei.
var sqlite = dialect{
	name:   "sqlite",
	driver: "sqlite",
	types:  strings.NewReplacer("{{wei}}", "TEXT", "{{bytes}}", "BLOB"),
	encodeWei: func(v *big.Int) any {
		s := v.String()
		return strings.Repeat("0", weiDigits-len(s)) + s
	},
	decodeWei: parseDecimal,
	rebind:    func(q string) string { return q },
}

// parseDecimal reads a non-negative decimal amount (leading zeros allowed).
func parseDecimal(s string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(strings.TrimLeft(s, "0"), 10)
	if !ok {
		if strings.Trim(s, "0") == "" && s != "" {
			return new(big.Int), nil
		}
		return nil, fmt.Errorf("bad amount %q in database", s)
	}
	if v.Sign() < 0 || len(v.String()) > weiDigits {
		return nil, fmt.Errorf("amount %q out of range", s)
	}
	return v, nil
}

// postgres stores amounts as NUMERIC(78,0): exact, ordered numerically by
// the engine, and large enough for any uint256. They travel as decimal text,
// which pgx passes through for NUMERIC parameters and returns for NUMERIC
// columns, so no float ever touches a wei amount.
var postgres = dialect{
	name:      "postgres",
	driver:    "pgx",
	types:     strings.NewReplacer("{{wei}}", "NUMERIC(78,0)", "{{bytes}}", "BYTEA"),
	encodeWei: func(v *big.Int) any { return v.String() },
	decodeWei: parseDecimal,
	rebind:    dollarPlaceholders,
}

// dollarPlaceholders rewrites each ? of q as $1, $2, … in order. The queries
// of this package hold no ? inside string literals, so a plain scan is
// enough.
func dollarPlaceholders(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
