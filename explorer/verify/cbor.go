package verify

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Trailer is the CBOR map solc appends to runtime code.
type Trailer struct {
	IPFS         []byte // sha2-256 multihash of the metadata
	Bzzr0, Bzzr1 []byte // Swarm hashes of the metadata (older compilers)
	Solc         string // compiler version, "0.8.28" (or the full string of a prerelease)
	Experimental bool
	Raw          []byte // the CBOR and its two length bytes, as they end the code
}

// ErrNoTrailer says the code carries no metadata hash.
var ErrNoTrailer = errors.New("the deployed bytecode carries no metadata hash (no CBOR trailer): it was compiled with metadata appending off, or not by solc/vyper")

// ParseTrailer reads the CBOR trailer at the end of runtime code: its last
// two bytes are the big-endian length of the CBOR map before them.
func ParseTrailer(code []byte) (*Trailer, error) {
	if len(code) < 2 {
		return nil, ErrNoTrailer
	}
	n := int(binary.BigEndian.Uint16(code[len(code)-2:]))
	if n == 0 || n+2 > len(code) {
		return nil, ErrNoTrailer
	}
	c := &cbor{b: code[len(code)-2-n : len(code)-2]}
	entries, err := c.mapHeader()
	if err != nil {
		return nil, ErrNoTrailer
	}
	t := &Trailer{Raw: code[len(code)-2-n:]}
	for i := 0; i < entries; i++ {
		key, err := c.text()
		if err != nil {
			return nil, ErrNoTrailer
		}
		v, err := c.value()
		if err != nil {
			return nil, ErrNoTrailer
		}
		switch key {
		case "ipfs":
			t.IPFS, _ = v.([]byte)
		case "bzzr0":
			t.Bzzr0, _ = v.([]byte)
		case "bzzr1":
			t.Bzzr1, _ = v.([]byte)
		case "experimental":
			t.Experimental, _ = v.(bool)
		case "solc":
			switch s := v.(type) {
			case []byte:
				if len(s) == 3 {
					t.Solc = fmt.Sprintf("%d.%d.%d", s[0], s[1], s[2])
				}
			case string:
				t.Solc = s
			}
		}
	}
	if c.off != len(c.b) || (t.IPFS == nil && t.Bzzr0 == nil && t.Bzzr1 == nil) {
		return nil, ErrNoTrailer
	}
	return t, nil
}

// cbor decodes the small subset of CBOR solc writes: a definite map of text
// keys to byte strings, text strings and booleans.
type cbor struct {
	b   []byte
	off int
}

var errCBOR = errors.New("malformed CBOR")

func (c *cbor) head() (major byte, arg uint64, err error) {
	if c.off >= len(c.b) {
		return 0, 0, errCBOR
	}
	ib := c.b[c.off]
	c.off++
	major, info := ib>>5, ib&0x1f
	switch {
	case info < 24:
		return major, uint64(info), nil
	case info <= 27:
		size := 1 << (info - 24)
		if c.off+size > len(c.b) {
			return 0, 0, errCBOR
		}
		var v uint64
		for _, x := range c.b[c.off : c.off+size] {
			v = v<<8 | uint64(x)
		}
		c.off += size
		return major, v, nil
	}
	return 0, 0, errCBOR
}

func (c *cbor) mapHeader() (int, error) {
	m, n, err := c.head()
	if err != nil || m != 5 || n > 64 {
		return 0, errCBOR
	}
	return int(n), nil
}

func (c *cbor) bytesOf(n uint64) ([]byte, error) {
	if n > uint64(len(c.b)-c.off) {
		return nil, errCBOR
	}
	b := c.b[c.off : c.off+int(n)]
	c.off += int(n)
	return b, nil
}

func (c *cbor) text() (string, error) {
	m, n, err := c.head()
	if err != nil || m != 3 {
		return "", errCBOR
	}
	b, err := c.bytesOf(n)
	return string(b), err
}

func (c *cbor) value() (any, error) {
	m, n, err := c.head()
	if err != nil {
		return nil, err
	}
	switch m {
	case 0:
		return n, nil
	case 2:
		return c.bytesOf(n)
	case 3:
		b, err := c.bytesOf(n)
		return string(b), err
	case 7:
		switch n {
		case 20:
			return false, nil
		case 21:
			return true, nil
		}
	}
	return nil, errCBOR
}
