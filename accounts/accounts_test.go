package accounts

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// The first accounts of the test mnemonic, as anvil and Hardhat print them.
func TestDeriveKeyMatchesAnvil(t *testing.T) {
	want := []struct{ addr, key string }{
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"},
		{"0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"},
		{"0xa0Ee7A142d267C1f36714E4a8F75612F20a79720", "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"},
	}
	for i, idx := range []uint32{0, 1, 9} {
		k, err := DeriveKey(TestMnemonic, idx)
		if err != nil {
			t.Fatal(err)
		}
		if k.Address.Hex() != want[i].addr || hexutil.Encode(crypto.FromECDSA(k.Private)) != want[i].key {
			t.Errorf("index %d: %s %x, want %s %s", idx, k.Address.Hex(), crypto.FromECDSA(k.Private), want[i].addr, want[i].key)
		}
	}
	if _, err := DeriveKey("test test test", 0); err == nil {
		t.Error("an invalid mnemonic was accepted")
	}
}

func TestBech32Spellings(t *testing.T) {
	addr := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	b := Bech32("ember", addr)
	if !strings.HasPrefix(b, "ember1") || len(b) != len("ember1")+32+6 {
		t.Fatalf("bech32 %q", b)
	}
	for _, s := range []string{b, addr.Hex(), strings.ToLower(addr.Hex())} {
		got, err := ParseAddress("ember", s)
		if err != nil || got != addr {
			t.Errorf("ParseAddress(%q) = %s, %v", s, got, err)
		}
	}
	bad := []string{
		"0x1234",                         // short hex
		"cosmos1" + b[len("ember1"):],    // wrong prefix (and checksum)
		b[:len(b)-1] + flip(b[len(b)-1]), // checksum broken
		Bech32("ember", addr)[:20],       // truncated
	}
	for _, s := range bad {
		if _, err := ParseAddress("ember", s); err == nil {
			t.Errorf("ParseAddress(%q) accepted", s)
		}
	}
}

func flip(c byte) string {
	if c == 'q' {
		return "p"
	}
	return "q"
}

// Every kind round-trips, and a string of one kind is never read as another.
func TestBech32Kinds(t *testing.T) {
	p := NewPrefixes("ember")
	want := map[Kind]string{KindAccount: "ember1", KindAccountPub: "emberpub1", KindValidator: "embervaloper1",
		KindValidatorPub: "embervaloperpub1", KindConsensus: "embervalcons1", KindConsensusPub: "embervalconspub1"}
	for k, prefix := range want {
		data := make([]byte, kindSize[k])
		for i := range data {
			data[i] = byte(i*7 + int(k))
		}
		s, err := p.Encode(k, data)
		if err != nil || !strings.HasPrefix(s, prefix) {
			t.Fatalf("%v: %q %v", k, s, err)
		}
		gotKind, got, err := p.Decode(s)
		if err != nil || gotKind != k || string(got) != string(data) {
			t.Errorf("%v: decoded %v %x %v", k, gotKind, got, err)
		}
		if _, err := p.Encode(k, data[1:]); err == nil {
			t.Errorf("%v: a short key was encoded", k)
		}
	}
	if _, _, err := NewPrefixes("cosmos").Decode(Bech32("ember", common.Address{1})); err == nil {
		t.Error("another chain's address was accepted")
	}
}
