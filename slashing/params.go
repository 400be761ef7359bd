package slashing

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Params are the module's parameters (the SDK's slashing Params).
type Params struct {
	SignedBlocksWindow      int64
	MinSignedPerWindow      dec.Dec
	DowntimeJailDuration    time.Duration
	SlashFractionDoubleSign dec.Dec
	SlashFractionDowntime   dec.Dec
}

// DefaultParams are the SDK's defaults.
func DefaultParams() Params {
	return Params{
		SignedBlocksWindow:      100,
		MinSignedPerWindow:      dec.MustParse("0.5"),
		DowntimeJailDuration:    600 * time.Second,
		SlashFractionDoubleSign: dec.MustParse("0.05"),
		SlashFractionDowntime:   dec.MustParse("0.01"),
	}
}

// Validate applies the SDK's rules: a positive window and jail duration,
// fractions between 0 and 1.
func (p Params) Validate() error {
	if p.SignedBlocksWindow <= 0 {
		return fmt.Errorf("signed blocks window must be positive: %d", p.SignedBlocksWindow)
	}
	if p.DowntimeJailDuration <= 0 {
		return fmt.Errorf("downtime jail duration must be positive: %s", p.DowntimeJailDuration)
	}
	for _, f := range []struct {
		name string
		v    dec.Dec
	}{
		{"min signed per window", p.MinSignedPerWindow},
		{"double sign slash fraction", p.SlashFractionDoubleSign},
		{"downtime slash fraction", p.SlashFractionDowntime},
	} {
		if f.v.IsNegative() {
			return fmt.Errorf("%s cannot be negative: %s", f.name, f.v)
		}
		if f.v.GT(dec.One()) {
			return fmt.Errorf("%s too large: %s", f.name, f.v)
		}
	}
	return nil
}

// MinSignedBlocks is the number of blocks of a window a validator must
// sign: min_signed_per_window × window rounded half to even, as the SDK's
// MinSignedPerWindow rounds it.
func (p Params) MinSignedBlocks() int64 {
	one := dec.One().Raw()
	q, r := new(big.Int).QuoRem(p.MinSignedPerWindow.MulInt(big.NewInt(p.SignedBlocksWindow)).Raw(), one, new(big.Int))
	switch c := new(big.Int).Lsh(r, 1).Cmp(one); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// MaxMissedBlocks is the most blocks of a window a validator may miss
// without being punished.
func (p Params) MaxMissedBlocks() int64 { return p.SignedBlocksWindow - p.MinSignedBlocks() }

// Enabled tells whether the chain's genesis had a slashing section. A
// chain without one (a dev chain: one validator, nothing to punish; a home
// made before the module) counts no votes: its signing infos would change
// the state at every block, so an idle dev chain, which makes a block
// whenever its state changed, would never stop making blocks.
func Enabled(st module.Reader) bool { return store.Uint(st, slots.Word(slotWindow)) != 0 }

// GetParams reads the parameters; a chain whose genesis predates the
// module has none stored and runs on the defaults.
func GetParams(st module.Reader) Params {
	w := store.Uint(st, slots.Word(slotWindow))
	if w == 0 {
		return DefaultParams()
	}
	return Params{
		SignedBlocksWindow:      int64(w),
		MinSignedPerWindow:      store.Dec(st, slots.Word(slotMinSigned)),
		DowntimeJailDuration:    time.Duration(store.Uint(st, slots.Word(slotJailTime))),
		SlashFractionDoubleSign: store.Dec(st, slots.Word(slotDoubleSign)),
		SlashFractionDowntime:   store.Dec(st, slots.Word(slotDowntime)),
	}
}

// setParams writes valid parameters.
func setParams(st module.State, p Params) {
	ensureAccount(st)
	store.SetUint(st, slots.Word(slotWindow), uint64(p.SignedBlocksWindow))
	store.SetDec(st, slots.Word(slotMinSigned), p.MinSignedPerWindow)
	store.SetUint(st, slots.Word(slotJailTime), uint64(p.DowntimeJailDuration))
	store.SetDec(st, slots.Word(slotDoubleSign), p.SlashFractionDoubleSign)
	store.SetDec(st, slots.Word(slotDowntime), p.SlashFractionDowntime)
}

// GenesisState is app_state.slashing, in the SDK's JSON.
type GenesisState struct {
	Params ParamsJSON `json:"params"`
	// SigningInfos and MissedBlocks (an exported chain's records) must be
	// empty: a new chain starts with none, and each validator's record is
	// made when it first signs.
	SigningInfos []json.RawMessage `json:"signing_infos"`
	MissedBlocks []json.RawMessage `json:"missed_blocks"`
}

// ParamsJSON is Params in the SDK's JSON: the window as a string or a
// number, decimals as "0.500000000000000000", the duration as "600s". An
// absent field keeps its default.
type ParamsJSON struct {
	SignedBlocksWindow      *Int64JSON `json:"signed_blocks_window,omitempty"`
	MinSignedPerWindow      string     `json:"min_signed_per_window,omitempty"`
	DowntimeJailDuration    string     `json:"downtime_jail_duration,omitempty"`
	SlashFractionDoubleSign string     `json:"slash_fraction_double_sign,omitempty"`
	SlashFractionDowntime   string     `json:"slash_fraction_downtime,omitempty"`
}

// Int64JSON is an int64 written as a JSON string (proto3 JSON) or number.
type Int64JSON int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int64JSON) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	if err != nil {
		return fmt.Errorf("invalid integer %s", b)
	}
	*n = Int64JSON(v)
	return nil
}

// MarshalJSON implements json.Marshaler: a string, as proto3 JSON.
func (n Int64JSON) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(n), 10) + `"`), nil
}

// JSON is p in the SDK's JSON.
func (p Params) JSON() ParamsJSON {
	w := Int64JSON(p.SignedBlocksWindow)
	return ParamsJSON{
		SignedBlocksWindow:      &w,
		MinSignedPerWindow:      p.MinSignedPerWindow.String(),
		DowntimeJailDuration:    strconv.FormatFloat(p.DowntimeJailDuration.Seconds(), 'f', -1, 64) + "s",
		SlashFractionDoubleSign: p.SlashFractionDoubleSign.String(),
		SlashFractionDowntime:   p.SlashFractionDowntime.String(),
	}
}

// Params reads j over the defaults and validates the result.
func (j ParamsJSON) Params() (Params, error) {
	p := DefaultParams()
	if j.SignedBlocksWindow != nil {
		p.SignedBlocksWindow = int64(*j.SignedBlocksWindow)
	}
	if j.DowntimeJailDuration != "" {
		d, err := time.ParseDuration(j.DowntimeJailDuration)
		if err != nil {
			return Params{}, fmt.Errorf("downtime_jail_duration: invalid duration %q: want e.g. \"600s\"", j.DowntimeJailDuration)
		}
		p.DowntimeJailDuration = d
	}
	for _, f := range []struct {
		name, s string
		to      *dec.Dec
	}{
		{"min_signed_per_window", j.MinSignedPerWindow, &p.MinSignedPerWindow},
		{"slash_fraction_double_sign", j.SlashFractionDoubleSign, &p.SlashFractionDoubleSign},
		{"slash_fraction_downtime", j.SlashFractionDowntime, &p.SlashFractionDowntime},
	} {
		if f.s == "" {
			continue
		}
		d, err := dec.Parse(f.s)
		if err != nil {
			return Params{}, fmt.Errorf("%s: %v", f.name, err)
		}
		*f.to = d
	}
	return p, p.Validate()
}
