// Package verify checks Solidity (and Vyper) sources against deployed code
// without a compiler, as Sourcify does for a "full match": solc appends to
// the runtime code a CBOR map holding the hash of the metadata JSON (IPFS
// CIDv0, or the older Swarm hashes), and the metadata lists the keccak256
// of every source. Metadata whose hash is the one in the code, and sources
// whose hashes are the ones in the metadata, are exactly what was compiled.
package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"
)

// ipfsChunk is the largest file an IPFS UnixFS leaf holds (ipfs add's
// default chunker); larger files become a tree of at most ipfsFanout links
// per node, built bottom-up exactly as solc's libsolutil/IpfsHash does.
const (
	ipfsChunk  = 256 * 1024
	ipfsFanout = 174
)

func varint(n uint64) []byte { return binary.AppendUvarint(nil, n) }

// pbBytes is a protobuf length-delimited field.
func pbBytes(tag byte, b []byte) []byte {
	return append(append([]byte{tag}, varint(uint64(len(b)))...), b...)
}

// multihash is the sha2-256 multihash of b: 0x12 0x20 then the digest.
func multihash(b []byte) []byte {
	d := sha256.Sum256(b)
	return append([]byte{0x12, 0x20}, d[:]...)
}

type ipfsNode struct {
	hash      []byte // multihash
	size      uint64 // file bytes below the node
	blockSize uint64 // serialized bytes of the node and everything below
}

// IPFSHash is the multihash (CIDv0 bytes) `ipfs add` gives data: a UnixFS
// file node in a dag-pb node, chunked at 256 KiB into a balanced tree.
func IPFSHash(data []byte) []byte {
	var level []ipfsNode
	for off := 0; off == 0 || off < len(data); off += ipfsChunk {
		chunk := data[off:min(off+ipfsChunk, len(data))]
		unixfs := []byte{0x08, 0x02} // Type: File
		if len(chunk) > 0 {
			unixfs = append(unixfs, pbBytes(0x12, chunk)...) // Data
		}
		unixfs = append(append(unixfs, 0x18), varint(uint64(len(chunk)))...) // filesize
		block := pbBytes(0x0a, unixfs)                                       // PBNode.Data
		level = append(level, ipfsNode{multihash(block), uint64(len(chunk)), uint64(len(block))})
	}
	for len(level) > 1 {
		var next []ipfsNode
		for i := 0; i < len(level); i += ipfsFanout {
			next = append(next, combine(level[i:min(i+ipfsFanout, len(level))]))
		}
		level = next
	}
	return level[0].hash
}

// combine is a dag-pb node linking to links, with UnixFS blocksizes.
func combine(links []ipfsNode) ipfsNode {
	var out ipfsNode
	var data, sizes []byte
	for _, l := range links {
		out.size += l.size
		out.blockSize += l.blockSize
		link := pbBytes(0x0a, l.hash)                             // PBLink.Hash
		link = append(link, 0x12, 0x00)                           // PBLink.Name ""
		link = append(append(link, 0x18), varint(l.blockSize)...) // PBLink.Tsize
		data = append(data, pbBytes(0x12, link)...)               // PBNode.Links
		sizes = append(append(sizes, 0x20), varint(l.size)...)    // UnixFS blocksizes
	}
	unixfs := append(append([]byte{0x08, 0x02, 0x18}, varint(out.size)...), sizes...)
	block := append(data, pbBytes(0x0a, unixfs)...)
	out.blockSize += uint64(len(block))
	out.hash = multihash(block)
	return out
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// Base58 is Bitcoin's base58 (IPFS CIDv0 spelling), leading zeros as '1'.
func Base58(b []byte) string {
	n := new(big.Int).SetBytes(b)
	var out []byte
	mod, base := new(big.Int), big.NewInt(58)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// Bzzr0Hash is the legacy Swarm hash solc < 0.5.12 embedded.
func Bzzr0Hash(data []byte) []byte { return bzzr0(data) }

func bzzr0(data []byte) []byte {
	if len(data) <= 0x1000 {
		return swarmSimple(data, len(data))
	}
	max := 0x1000
	for max*(0x1000/32) < len(data) {
		max *= 0x1000 / 32
	}
	var inner []byte
	for i := 0; i < len(data); i += max {
		inner = append(inner, bzzr0(data[i:min(i+max, len(data))])...)
	}
	return swarmSimple(inner, len(data))
}

func le64(n int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(n)) }

func swarmSimple(b []byte, size int) []byte {
	return crypto.Keccak256(le64(size), b)
}

// Bzzr1Hash is the Swarm BMT hash solc 0.5.12–0.6.x embedded.
func Bzzr1Hash(data []byte) []byte {
	if len(data) == 0 {
		return make([]byte, 32)
	}
	return chunkHash(data, false)
}

func bmt(b []byte) []byte {
	if len(b) <= 64 {
		return crypto.Keccak256(b)
	}
	mid := len(b) / 2
	return crypto.Keccak256(bmt(b[:mid]), bmt(b[mid:]))
}

func chunkHash(data []byte, higher bool) []byte {
	var toHash []byte
	if len(data) < 0x1000 || (len(data) == 0x1000 && !higher) {
		toHash = append([]byte{}, data...)
	} else {
		max := 0x1000
		for max*(0x1000/32) < len(data) {
			max *= 0x1000 / 32
		}
		force := max > 0x1000
		for i := 0; i < len(data); i += max {
			toHash = append(toHash, chunkHash(data[i:min(i+max, len(data))], force)...)
		}
	}
	padded := make([]byte, 0x1000)
	copy(padded, toHash)
	return crypto.Keccak256(le64(len(data)), bmt(padded))
}
