package tokenizer

import "unicode/utf8"

// byteLevel is the GPT-2 byte-to-character table used by ByteLevel pre-tokenizers and
// decoders: printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for themselves,
// the other 68 bytes map in order to U+0100, U+0101, ... so every byte string becomes a
// printable string. Vocabulary entries are spelled in these characters.
type byteLevel struct {
	toRune [256]rune
	toByte [324]int16 // inverse of toRune, -1 for runes that encode no byte
}

func newByteLevel() *byteLevel {
	bl := &byteLevel{}
	for i := range bl.toByte {
		bl.toByte[i] = -1
	}
	next := rune(256)
	for b := range 256 {
		r := rune(b)
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if !printable {
			r = next
			next++
		}
		bl.toRune[b] = r
		bl.toByte[r] = int16(b)
	}
	return bl
}

// encode spells the bytes of s in byte-level characters.
func (bl *byteLevel) encode(s string) string {
	out := make([]rune, len(s))
	for i := range len(s) {
		out[i] = bl.toRune[s[i]]
	}
	return string(out)
}

// appendDecoded appends the bytes a vocabulary token stands for. Like the ByteLevel
// decoder of Hugging Face tokenizers, a token containing any character outside the table
// is appended verbatim.
func (bl *byteLevel) appendDecoded(dst []byte, token string) []byte {
	n := len(dst)
	for _, r := range token {
		if r < 0 || int(r) >= len(bl.toByte) || bl.toByte[r] < 0 {
			return append(dst[:n], token...)
		}
		dst = append(dst, byte(bl.toByte[r]))
	}
	return dst
}

// toValidUTF8 replaces each maximal invalid subsequence of s by U+FFFD, the way Rust's
// String::from_utf8_lossy (and Python's errors="replace") do: a truncated but otherwise
// well-formed sequence becomes one replacement character, a stray byte one each.
func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, s[i:i+size]...)
			i += size
			continue
		}
		out = append(out, "\uFFFD"...)
		i += invalidPrefixLen(s[i:])
	}
	return string(out)
}

// invalidPrefixLen returns the length of the maximal prefix of s (which starts with an
// invalid UTF-8 sequence) that could begin a well-formed sequence, at least 1.
func invalidPrefixLen(s string) int {
	b0 := s[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case b0 >= 0xC2 && b0 <= 0xDF:
		need = 1
	case b0 == 0xE0:
		need, lo = 2, 0xA0
	case b0 >= 0xE1 && b0 <= 0xEC, b0 == 0xEE, b0 == 0xEF:
		need = 2
	case b0 == 0xED:
		need, hi = 2, 0x9F
	case b0 == 0xF0:
		need, lo = 3, 0x90
	case b0 >= 0xF1 && b0 <= 0xF3:
		need = 3
	case b0 == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(s); k++ {
		c := s[n]
		if k > 0 {
			lo, hi = 0x80, 0xBF
		}
		if c < lo || c > hi {
			break
		}
		n++
	}
	return n
}
