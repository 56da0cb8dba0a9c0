package server

import (
	"bytes"
	"encoding/binary"
)

// bodyDict stores bodies that share most of their bytes with a dictionary made of a few of
// them: a stored body is a sequence of literal runs and copies from the dictionary
// (varints: a length shifted left once, its low bit set for a copy, then for a copy the
// dictionary offset). Decoding is a few memory copies, so a cache hit costs well under a
// microsecond; stdlib flate with the same dictionary stores less but is slower to decode,
// as it must load the dictionary into its window first.
type bodyDict struct {
	dict  []byte
	table []uint32 // position+1 of the last dictionary position with each hash of dictMatch bytes
}

const (
	dictMatch     = 8 // shortest copy, and the bytes hashed to find one
	dictTableBits = 15
)

func dictHash(b []byte) uint32 {
	return uint32((binary.LittleEndian.Uint64(b) * 0x9e3779b97f4a7c15) >> (64 - dictTableBits))
}

// newBodyDict indexes dict.
func newBodyDict(dict []byte) *bodyDict {
	d := &bodyDict{dict: dict, table: make([]uint32, 1<<dictTableBits)}
	for i := 0; i+dictMatch <= len(dict); i++ {
		d.table[dictHash(dict[i:])] = uint32(i + 1)
	}
	return d
}

// encode appends the stored form of src to dst: greedily, the longest copy found at each
// position (extended backwards over pending literals), else a literal byte.
func (d *bodyDict) encode(dst, src []byte) []byte {
	lit, i := 0, 0
	for i+dictMatch <= len(src) {
		c := int(d.table[dictHash(src[i:])]) - 1
		if c < 0 || !bytes.Equal(d.dict[c:c+dictMatch], src[i:i+dictMatch]) {
			i++
			continue
		}
		n := dictMatch
		for i+n < len(src) && c+n < len(d.dict) && src[i+n] == d.dict[c+n] {
			n++
		}
		for i > lit && c > 0 && src[i-1] == d.dict[c-1] {
			i, c, n = i-1, c-1, n+1
		}
		dst = appendLiteral(dst, src[lit:i])
		dst = binary.AppendUvarint(dst, uint64(n)<<1|1)
		dst = binary.AppendUvarint(dst, uint64(c))
		i += n
		lit = i
	}
	return appendLiteral(dst, src[lit:])
}

func appendLiteral(dst, lit []byte) []byte {
	if len(lit) == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(len(lit))<<1)
	return append(dst, lit...)
}

// decode appends the body stored as enc to dst. A malformed enc (which encode never makes)
// ends the body early, which the caller sees as a length that differs from the body's.
func (d *bodyDict) decode(dst, enc []byte) []byte {
	for len(enc) > 0 {
		v, k := binary.Uvarint(enc)
		if k <= 0 {
			return dst
		}
		enc = enc[k:]
		n := v >> 1
		if v&1 == 0 {
			if n > uint64(len(enc)) {
				return dst
			}
			dst = append(dst, enc[:n]...)
			enc = enc[n:]
			continue
		}
		off, k := binary.Uvarint(enc)
		if k <= 0 || off > uint64(len(d.dict)) || n > uint64(len(d.dict))-off {
			return dst
		}
		enc = enc[k:]
		dst = append(dst, d.dict[off:off+n]...)
	}
	return dst
}
