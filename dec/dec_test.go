package dec

import (
	"math/big"
	"testing"
)

func TestParseString(t *testing.T) {
	for in, want := range map[string]string{
		"0.05":                 "0.050000000000000000",
		"1":                    "1.000000000000000000",
		"-2.5":                 "-2.500000000000000000",
		"0.000000000000000001": "0.000000000000000001",
		"123456789.1":          "123456789.100000000000000000",
	} {
		d, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if d.String() != want {
			t.Errorf("Parse(%q) = %s, want %s", in, d, want)
		}
	}
	for _, bad := range []string{"", ".5", "1.", "1.0000000000000000001", "abc", "1e5", "--1", "1.-5"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestRounding checks the SDK's banker's rounding in Mul and Quo and the
// truncation of the *Truncate forms, on values whose 19th digit decides.
func TestRounding(t *testing.T) {
	tiny := MustParse("0.000000000000000001")
	halfTiny := MustParse("0.5")
	cases := []struct {
		name string
		got  Dec
		want string
	}{
		{"1e-18 × 0.5 rounds half to even (0)", tiny.Mul(halfTiny), "0.000000000000000000"},
		{"3e-18 × 0.5 rounds half to even (2e-18)", tiny.MulInt(big.NewInt(3)).Mul(halfTiny), "0.000000000000000002"},
		{"3e-18 × 0.5 truncated", tiny.MulInt(big.NewInt(3)).MulTruncate(halfTiny), "0.000000000000000001"},
		{"2 ÷ 3 rounds up", FromInt64(2).Quo(FromInt64(3)), "0.666666666666666667"},
		{"2 ÷ 3 truncated", FromInt64(2).QuoTruncate(FromInt64(3)), "0.666666666666666666"},
		{"-2 ÷ 3 rounds away", FromInt64(-2).Quo(FromInt64(3)), "-0.666666666666666667"},
		{"0.1 × 0.1", MustParse("0.1").Mul(MustParse("0.1")), "0.010000000000000000"},
		{"7 ÷ 2 (int)", FromInt64(7).QuoInt(big.NewInt(2)), "3.500000000000000000"},
	}
	for _, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("%s: got %s, want %s", c.name, c.got, c.want)
		}
	}
	if got := MustParse("2.99").TruncateInt(); got.Int64() != 2 {
		t.Errorf("TruncateInt(2.99) = %v", got)
	}
	var zero Dec
	if !zero.IsZero() || zero.String() != "0.000000000000000000" || !zero.Add(One()).Equal(One()) {
		t.Errorf("the zero Dec is not 0")
	}
}

func TestRawRoundTrip(t *testing.T) {
	d := MustParse("0.123456789012345678")
	if r := d.Raw(); r.String() != "123456789012345678" || !FromRaw(r).Equal(d) {
		t.Errorf("raw round trip of %s: %v", d, r)
	}
	r := d.Raw()
	r.SetInt64(0)
	if d.IsZero() {
		t.Errorf("Raw aliases the Dec")
	}
}
