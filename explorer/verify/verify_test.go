package verify

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/emberchain/ember/contracts"
)

// TestIPFSHash checks the CIDv0 of solc's own test vectors (libsolutil
// IpfsHash tests) and of `ipfs add` for a chunked file.
func TestIPFSHash(t *testing.T) {
	zeros := func(n int) []byte { return make([]byte, n) }
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"},
		{[]byte("x"), "QmULKig5Fxrs2sC4qt9nNduucXfb92AFYQ6Hi3YRqDmrYC"},
		{[]byte("Solidity\n"), "QmSsm9M7PQRBnyiz1smizk8hZw3URfk8fSeHzeTo3oZidS"},
		{zeros(200), "QmSXR1N23uWzsANi8wpxMPw5dmmhqBVUAb4hUrHVLpNaMr"},
		{zeros(10250), "QmVJJBB3gKKBWYC9QTywpH8ZL1bDeTDJ17B63Af5kino9i"},
		{zeros(100000), "QmYgKa25YqEGpQmmZtPPFMNK3kpqqneHk6nMSEUYryEX1C"},
		{zeros(121071), "QmdMdRshQmqvyc92N82r7AKYdUF5FRh4DJo6GtrmEk3wgj"},
		{zeros(131071), "QmSxYSToKHsPqqRdRnsM9gmr3EYS6dakhVaHgbFdgYQWi6"},
		{zeros(256*1024 - 1), "QmbNDspMkzkMFKyS3eCJGedG7GWRQHSCzJCZLjxP7wyVAx"},
		{zeros(1310710), "QmNg7BJo8gEMDK8yGQbHEwPtycesnE6FUULX5iVd5TAL9f"}, // 5 chunks
	} {
		if got := Base58(IPFSHash(c.data)); got != c.want {
			t.Errorf("ipfs hash of %d bytes: %s, want %s", len(c.data), got, c.want)
		}
	}
}

func files(c *contracts.Contract) map[string][]byte {
	out := map[string][]byte{"metadata.json": []byte(c.Metadata)}
	for p, s := range c.Sources {
		out[p] = []byte(s)
	}
	return out
}

func TestVerifyArtifacts(t *testing.T) {
	tok, nft := contracts.MustLoad("EmberToken"), contracts.MustLoad("EmberNFT")
	creation, err := tok.DeployData(big.NewInt(1234))
	if err != nil {
		t.Fatal(err)
	}
	vc, err := Verify(tok.DeployedBytecode, creation, files(tok))
	if err != nil {
		t.Fatal(err)
	}
	if vc.Name != "EmberToken" || vc.FilePath != "EmberToken.sol" || !vc.FullMatch || vc.CompilerVersion != "v0.8.28+commit.7893614a" ||
		vc.EVMVersion != "cancun" || !vc.Optimization || vc.OptimizerRuns == nil || *vc.OptimizerRuns != 200 || vc.LicenseType != "mit" {
		t.Fatalf("verified: %+v", vc)
	}
	if vc.SourceCode != tok.Sources["EmberToken.sol"] || len(vc.Sources) != len(tok.Sources)-1 {
		t.Fatalf("sources: %d additional", len(vc.Sources))
	}
	if new(big.Int).SetBytes(vc.ConstructorArgs).Int64() != 1234 || len(vc.ConstructorArgs) != 32 || string(vc.CreationCode) != string(tok.Bytecode) {
		t.Fatalf("constructor args %x", vc.ConstructorArgs)
	}

	// One byte changed in a source.
	f := files(tok)
	f["EmberToken.sol"] = []byte(strings.Replace(tok.Sources["EmberToken.sol"], "Ember Token", "Ember Tokem", 1))
	var r *Refusal
	if _, err := Verify(tok.DeployedBytecode, creation, f); !errors.As(err, &r) || !strings.Contains(r.Reason, "source EmberToken.sol was modified") {
		t.Fatalf("tampered source: %v", err)
	}
	// A missing import.
	f = files(tok)
	delete(f, "@openzeppelin/contracts/token/ERC20/ERC20.sol")
	if _, err := Verify(tok.DeployedBytecode, creation, f); !errors.As(err, &r) || !strings.Contains(r.Reason, "@openzeppelin/contracts/token/ERC20/ERC20.sol is missing") {
		t.Fatalf("missing source: %v", err)
	}
	// Another contract's metadata.
	if _, err := Verify(tok.DeployedBytecode, creation, files(nft)); !errors.As(err, &r) || !strings.Contains(r.Reason, "the metadata does not match the deployed bytecode") {
		t.Fatalf("other metadata: %v", err)
	}
	// No metadata at all, no code, code without a trailer.
	if _, err := Verify(tok.DeployedBytecode, nil, map[string][]byte{"a.sol": []byte("contract A {}")}); !errors.As(err, &r) || !strings.Contains(r.Reason, "no metadata JSON") {
		t.Fatalf("no metadata: %v", err)
	}
	if _, err := Verify(nil, nil, files(tok)); !errors.As(err, &r) {
		t.Fatalf("no code: %v", err)
	}
	if _, err := Verify([]byte{0x60, 0x00, 0x60, 0x00}, nil, files(tok)); !errors.As(err, &r) || !strings.Contains(r.Reason, "no metadata hash") {
		t.Fatalf("no trailer: %v", err)
	}
}

func TestTrailer(t *testing.T) {
	tok := contracts.MustLoad("EmberToken")
	tr, err := ParseTrailer(tok.DeployedBytecode)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Solc != "0.8.28" || len(tr.IPFS) != 34 || Base58(tr.IPFS) != Base58(IPFSHash([]byte(tok.Metadata))) {
		t.Fatalf("trailer: %+v", tr)
	}
	for _, bad := range [][]byte{nil, {0x00}, {0xa1, 0x00, 0x01}, {0xff, 0xff}} {
		if _, err := ParseTrailer(bad); err == nil {
			t.Fatalf("%x parsed", bad)
		}
	}
}
