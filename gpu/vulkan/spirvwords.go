//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"encoding/binary"
	"fmt"
)

// spirvMagic is the first word of every SPIR-V module (little-endian words here).
const spirvMagic = 0x07230203

// spirvHeaderWords is the length of a module's header: magic, version, generator, id bound,
// schema.
const spirvHeaderWords = 5

// spirvModule is a SPIR-V module split into its header and its instructions, each a slice of
// the module's words whose first word holds the word count (high 16 bits) and the opcode
// (low 16 bits).
type spirvModule struct {
	header [spirvHeaderWords]uint32
	insts  [][]uint32
}

// spirvWords reads little-endian SPIR-V bytes as words.
func spirvWords(code []byte) ([]uint32, error) {
	if len(code)%4 != 0 {
		return nil, fmt.Errorf("spirv: %d bytes, not whole words", len(code))
	}
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(code[4*i:])
	}
	return words, nil
}

// spirvBytes writes words as little-endian bytes.
func spirvBytes(words []uint32) []byte {
	out := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

// parseSPIRV splits words into header and instructions. It checks the magic number and that
// every instruction's word count is at least one and stays inside the module; the
// instructions alias words.
func parseSPIRV(words []uint32) (*spirvModule, error) {
	if len(words) < spirvHeaderWords {
		return nil, fmt.Errorf("spirv: %d words, shorter than the header", len(words))
	}
	if words[0] != spirvMagic {
		return nil, fmt.Errorf("spirv: magic %#x, not %#x", words[0], spirvMagic)
	}
	m := &spirvModule{}
	copy(m.header[:], words)
	for i := spirvHeaderWords; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || n > len(words)-i {
			return nil, fmt.Errorf("spirv: instruction at word %d (opcode %d) counts %d words, %d left", i, words[i]&0xffff, n, len(words)-i)
		}
		m.insts = append(m.insts, words[i:i+n:i+n])
		i += n
	}
	return m, nil
}

// words joins the module back into one word slice.
func (m *spirvModule) words() []uint32 {
	n := spirvHeaderWords
	for _, in := range m.insts {
		n += len(in)
	}
	out := make([]uint32, 0, n)
	out = append(out, m.header[:]...)
	for _, in := range m.insts {
		out = append(out, in...)
	}
	return out
}

// spirvOp returns an instruction's opcode.
func spirvOp(in []uint32) uint32 { return in[0] & 0xffff }

// spirvInst builds an instruction of opcode op with operands.
func spirvInst(op uint32, operands ...uint32) []uint32 {
	return append([]uint32{uint32(len(operands)+1)<<16 | op}, operands...)
}

// spirvString decodes a literal string operand (NUL-terminated, packed little-endian into
// words); ok is false without a NUL inside ws.
func spirvString(ws []uint32) (s string, ok bool) {
	b := spirvBytes(ws)
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), true
		}
	}
	return "", false
}

// spirvLiteral encodes s as a literal string operand.
func spirvLiteral(s string) []uint32 {
	b := make([]byte, (len(s)/4+1)*4) // room for the NUL
	copy(b, s)
	ws, _ := spirvWords(b)
	return ws
}
