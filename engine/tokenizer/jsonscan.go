package tokenizer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonScanner is a minimal pull parser over a JSON document held in a string. It exists
// because tokenizer.json is megabytes of vocabulary and merges: walking them directly is
// about ten times faster than encoding/json into maps, and unescaped strings come out as
// zero-copy substrings of the document. Small sections are captured raw (see skip) and
// decoded with encoding/json.
type jsonScanner struct {
	data string
	pos  int
}

// errorf reports a syntax problem with the byte offset where it was found.
func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
}

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it (0 at the end).
func (s *jsonScanner) peek() byte {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *jsonScanner) expect(c byte) error {
	if s.peek() != c {
		if s.pos >= len(s.data) {
			return s.errorf("unexpected end of data, want %q", c)
		}
		return s.errorf("found %q, want %q", s.data[s.pos], c)
	}
	s.pos++
	return nil
}

// end checks that only white space follows the top-level value.
func (s *jsonScanner) end() error {
	s.skipSpace()
	if s.pos != len(s.data) {
		return s.errorf("unexpected data after the top-level value")
	}
	return nil
}

// object calls member for each key of an object; member must consume the value.
func (s *jsonScanner) object(member func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.errorf("want ',' or '}' in object")
		}
	}
}

// array calls elem for each element of an array; elem must consume the value.
func (s *jsonScanner) array(elem func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.errorf("want ',' or ']' in array")
		}
	}
}

// str reads a string. Strings without escapes are substrings of the document.
func (s *jsonScanner) str() (string, error) {
	if err := s.expect('"'); err != nil {
		return "", err
	}
	start := s.pos
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return s.data[start:i], nil
		case c == '\\':
			s.pos = i
			return s.unescape(start)
		case c < 0x20:
			s.pos = i
			return "", s.errorf("control character in string")
		}
	}
	s.pos = len(s.data)
	return "", s.errorf("unterminated string")
}

// unescape finishes a string that contains escapes; data[start:pos] is its plain prefix.
func (s *jsonScanner) unescape(start int) (string, error) {
	var b strings.Builder
	b.WriteString(s.data[start:s.pos])
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return b.String(), nil
		case c < 0x20:
			return "", s.errorf("control character in string")
		case c != '\\':
			b.WriteByte(c)
			s.pos++
			continue
		}
		if s.pos+1 >= len(s.data) {
			break
		}
		esc := s.data[s.pos+1]
		s.pos += 2
		switch esc {
		case '"', '\\', '/':
			b.WriteByte(esc)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, err := s.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate must be followed by an escaped low one; anything
				// else decodes to U+FFFD, as encoding/json does.
				r2 := rune(-1)
				if strings.HasPrefix(s.data[s.pos:], `\u`) {
					save := s.pos
					s.pos += 2
					if r2, err = s.hex4(); err != nil {
						return "", err
					}
					if utf16.DecodeRune(r, r2) == utf8.RuneError {
						s.pos = save
						r2 = -1
					}
				}
				r = utf16.DecodeRune(r, r2)
			}
			b.WriteRune(r)
		default:
			s.pos -= 2
			return "", s.errorf("invalid escape %q", esc)
		}
	}
	return "", s.errorf("unterminated string")
}

func (s *jsonScanner) hex4() (rune, error) {
	if s.pos+4 > len(s.data) {
		return 0, s.errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(s.data[s.pos:s.pos+4], 16, 32)
	if err != nil {
		return 0, s.errorf("invalid \\u escape %q", s.data[s.pos:s.pos+4])
	}
	s.pos += 4
	return rune(v), nil
}

// uint reads a non-negative integer no larger than limit.
func (s *jsonScanner) uint(limit int) (int, error) {
	s.skipSpace()
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	digits := s.data[start:s.pos]
	// A number continuing with '.', 'e' or '-' (or a leading '-') is no integer id.
	if s.pos < len(s.data) && strings.IndexByte(".eE-+", s.data[s.pos]) >= 0 {
		return 0, s.errorf("want a non-negative integer")
	}
	if digits == "" {
		return 0, s.errorf("want a number")
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v > limit {
		return 0, s.errorf("number %s exceeds %d", digits, limit)
	}
	return v, nil
}

// maxDepth bounds the nesting of skipped values, as encoding/json's limit does. Real
// tokenizer.json files nest a few levels.
const maxDepth = 10000

// skip consumes any value and returns its raw text. It walks nested objects and arrays
// with an explicit stack (no recursion), so a deeply nested document costs one byte per
// level up to maxDepth and then fails.
func (s *jsonScanner) skip() (string, error) {
	s.skipSpace()
	start := s.pos
	var open []byte // the '{' and '[' not yet closed, innermost last
	for {
		// A value is expected at s.pos.
		switch c := s.peek(); c {
		case '{', '[':
			if len(open) >= maxDepth {
				return "", s.errorf("values nested more than %d levels deep", maxDepth)
			}
			s.pos++
			open = append(open, c)
			if s.peek() == c+2 { // '{'+2 == '}', '['+2 == ']'
				s.pos++
				open = open[:len(open)-1]
				break
			}
			if c == '{' {
				if err := s.key(); err != nil {
					return "", err
				}
			}
			continue
		case '"':
			if _, err := s.str(); err != nil {
				return "", err
			}
		case 0:
			return "", s.errorf("unexpected end of data")
		default:
			// Numbers and literals: take the run up to the next delimiter; encoding/json
			// validates the captured sections that are used.
			i := s.pos
			for i < len(s.data) && strings.IndexByte(",}] \t\r\n", s.data[i]) < 0 {
				i++
			}
			if i == s.pos {
				return "", s.errorf("unexpected %q", c)
			}
			s.pos = i
		}
		// A value ended: close containers until a ',' asks for the next value.
		for {
			if len(open) == 0 {
				return s.data[start:s.pos], nil
			}
			top := open[len(open)-1]
			c := s.peek()
			if c == top+2 {
				s.pos++
				open = open[:len(open)-1]
				continue
			}
			if c != ',' {
				if top == '{' {
					return "", s.errorf("want ',' or '}' in object")
				}
				return "", s.errorf("want ',' or ']' in array")
			}
			s.pos++
			if top == '{' {
				if err := s.key(); err != nil {
					return "", err
				}
			}
			break
		}
	}
}

// key reads an object key and the ':' after it.
func (s *jsonScanner) key() error {
	if _, err := s.str(); err != nil {
		return err
	}
	return s.expect(':')
}
