package weights

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// field is one key/value pair of a JSON object, in file order.
type field struct {
	key string
	val json.RawMessage
}

// objectFields splits raw into the fields of one JSON object. Unlike json.Unmarshal into a map
// it rejects duplicate keys, and it rejects anything but whitespace after the object.
func objectFields(raw []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, found %s", jsonKind(raw))
	}
	var fields []field
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, eofIsUnexpected(err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is %v, not a string", tok)
		}
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, eofIsUnexpected(err))
		}
		fields = append(fields, field{key, v})
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, eofIsUnexpected(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return fields, nil
}

func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// jsonKind names the kind of JSON value raw starts with, for error messages.
func jsonKind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
		return "a number"
	}
	return fmt.Sprintf("invalid JSON (%q)", raw[:min(len(raw), 16)])
}

// span is where one tensor's bytes lie in the data section.
type span struct {
	lo, hi uint64
	name   string
}

// parse validates a complete safetensors image (8-byte little-endian header length, JSON
// header, data section) and builds its tensors as views of data. It follows the rules of the
// reference implementation: the header is a JSON object starting with '{' (trailing spaces
// allowed), no key appears twice, every tensor has a supported dtype, a shape of
// non-negative dimensions and data_offsets whose length matches shape and dtype exactly, and
// the tensors cover the data section exactly: no overlap, no gap, no trailing bytes.
// Every error is a *FileError naming path (and the tensor where one is involved).
func parse(path string, data []byte) (*File, error) {
	sf, err := parseImage(path, data)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return sf, nil
}

// parseImage is parse, its errors without the path.
func parseImage(path string, data []byte) (*File, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("not a safetensors file: %d bytes, shorter than the 8-byte header length", len(data))
	}
	hlen := binary.LittleEndian.Uint64(data[:8])
	if hlen > MaxHeaderBytes {
		return nil, fmt.Errorf("header length %d exceeds the %d-byte limit (corrupt or not safetensors)", hlen, MaxHeaderBytes)
	}
	if hlen > uint64(len(data)-8) {
		return nil, fmt.Errorf("header length %d runs past the end of the %d-byte file (truncated?)", hlen, len(data))
	}
	hdr := data[8 : 8+hlen]
	if len(hdr) == 0 || hdr[0] != '{' {
		return nil, errors.New("header does not start with '{' (corrupt or not safetensors)")
	}
	if !utf8.Valid(hdr) {
		return nil, errors.New("header is not valid UTF-8")
	}
	fields, err := objectFields(hdr)
	if err != nil {
		return nil, fmt.Errorf("malformed JSON header: %w", err)
	}
	body := data[8+hlen:]
	sf := &File{Path: path, data: data, tensors: make(map[string]*Tensor, len(fields))}
	spans := make([]span, 0, len(fields))
	for _, fl := range fields {
		if fl.key == "__metadata__" {
			if sf.Metadata, err = parseMetadata(fl.val); err != nil {
				return nil, fmt.Errorf("__metadata__: %w", err)
			}
			continue
		}
		t, sp, err := parseEntry(fl.val, uint64(len(body)))
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w", fl.key, err)
		}
		t.Name, t.File, t.data = fl.key, path, body[sp.lo:sp.hi:sp.hi]
		sp.name = fl.key
		sf.tensors[fl.key] = t
		sf.names = append(sf.names, fl.key)
		spans = append(spans, sp)
	}
	if err := checkLayout(spans, uint64(len(body))); err != nil {
		return nil, err
	}
	slices.Sort(sf.names)
	return sf, nil
}

// parseMetadata decodes the __metadata__ object, which must map strings to strings.
func parseMetadata(raw json.RawMessage) (map[string]string, error) {
	if jsonKind(raw) == "null" {
		return nil, nil
	}
	fields, err := objectFields(raw)
	if err != nil {
		return nil, fmt.Errorf("must be an object mapping strings to strings: %w", err)
	}
	md := make(map[string]string, len(fields))
	for _, fl := range fields {
		if k := jsonKind(fl.val); k != "a string" {
			return nil, fmt.Errorf("must map strings to strings, but %q is %s", fl.key, k)
		}
		var s string
		if err := json.Unmarshal(fl.val, &s); err != nil {
			return nil, fmt.Errorf("value of %q: %w", fl.key, err)
		}
		md[fl.key] = s
	}
	return md, nil
}

// parseEntry decodes one tensor's header entry and checks it against a data section of
// bodyLen bytes. The returned tensor lacks Name, File and data.
func parseEntry(raw json.RawMessage, bodyLen uint64) (*Tensor, span, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return nil, span{}, fmt.Errorf("malformed header entry: %w", err)
	}
	var dtype, shape, offsets json.RawMessage
	for _, fl := range fields {
		switch fl.key {
		case "dtype":
			dtype = fl.val
		case "shape":
			shape = fl.val
		case "data_offsets":
			offsets = fl.val
		} // other keys are ignored, as the reference implementation does
	}
	for _, req := range []struct {
		name, kind string
		val        json.RawMessage
	}{{"dtype", "a string", dtype}, {"shape", "an array", shape}, {"data_offsets", "an array", offsets}} {
		if req.val == nil {
			return nil, span{}, fmt.Errorf("header entry has no %q", req.name)
		}
		if k := jsonKind(req.val); k != req.kind {
			return nil, span{}, fmt.Errorf("%q is %s, want %s", req.name, k, req.kind)
		}
	}
	var ds string
	var dims []int64
	var offs []uint64
	if err := json.Unmarshal(dtype, &ds); err != nil {
		return nil, span{}, fmt.Errorf("dtype: %w", err)
	}
	dt, err := ParseDType(ds)
	if err != nil {
		return nil, span{}, err
	}
	if err := json.Unmarshal(shape, &dims); err != nil {
		return nil, span{}, fmt.Errorf("shape %s: %w", shape, err)
	}
	if err := json.Unmarshal(offsets, &offs); err != nil {
		return nil, span{}, fmt.Errorf("data_offsets %s: %w", offsets, err)
	}
	if len(offs) != 2 {
		return nil, span{}, fmt.Errorf("data_offsets must have 2 entries, has %d", len(offs))
	}
	lo, hi := offs[0], offs[1]
	if lo > hi {
		return nil, span{}, fmt.Errorf("data_offsets [%d, %d] end before they start", lo, hi)
	}
	if hi > bodyLen {
		return nil, span{}, fmt.Errorf("byte range [%d, %d) lies outside the %d-byte data section (truncated?)", lo, hi, bodyLen)
	}
	n, err := shapeBytes(dims, dt)
	if err != nil {
		return nil, span{}, err
	}
	if hi-lo != n {
		return nil, span{}, fmt.Errorf("shape %v of %s needs %d bytes, data_offsets [%d, %d] give %d", dims, dt, n, lo, hi, hi-lo)
	}
	s := make([]int, len(dims))
	for i, d := range dims {
		s[i] = int(d) // shapeBytes checked 0 <= d <= MaxInt
	}
	return &Tensor{DType: dt, Shape: s}, span{lo: lo, hi: hi}, nil
}

// shapeBytes is the byte size of a tensor of the given shape and dtype. It rejects negative
// dimensions, dimensions that do not fit an int, and shapes whose element count (or the
// product of their non-zero dimensions, so that code multiplying dimensions of an empty
// tensor cannot overflow either) does not fit an int.
func shapeBytes(dims []int64, dt DType) (uint64, error) {
	n, nz := uint64(1), uint64(1)
	for _, d := range dims {
		if d < 0 || uint64(d) > math.MaxInt {
			return 0, fmt.Errorf("invalid dimension %d in shape %v", d, dims)
		}
		n *= uint64(d) // cannot overflow: n <= nz, and nz*d is checked below
		if d != 0 {
			hi, lo := bits.Mul64(nz, uint64(d))
			if hi != 0 || lo > math.MaxInt {
				return 0, fmt.Errorf("shape %v has too many elements", dims)
			}
			nz = lo
		}
	}
	hi, size := bits.Mul64(n, uint64(dt.Size()))
	if hi != 0 || size > math.MaxInt {
		return 0, fmt.Errorf("shape %v of %s is too large", dims, dt)
	}
	return size, nil
}

// checkLayout requires the spans to tile [0, bodyLen) exactly, as the safetensors format does
// (it forbids holes so that files cannot hide extra content): sorted by offsets, each span
// starts where the previous one ended, and the last one ends at the end of the data.
func checkLayout(spans []span, bodyLen uint64) error {
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.lo, b.lo), cmp.Compare(a.hi, b.hi), strings.Compare(a.name, b.name))
	})
	// Overlaps first: they are the more telling fault when a tensor was moved.
	for i := 1; i < len(spans); i++ {
		if a, b := spans[i-1], spans[i]; b.lo < a.hi {
			return fmt.Errorf("tensors %q and %q overlap in the data section (%q starts at byte %d, before %q ends at %d)", a.name, b.name, b.name, b.lo, a.name, a.hi)
		}
	}
	var end uint64
	prev := ""
	for _, s := range spans {
		if s.lo > end {
			if prev == "" {
				return fmt.Errorf("%d unused bytes at the start of the data section, before tensor %q", s.lo-end, s.name)
			}
			return fmt.Errorf("%d unused bytes in the data section between tensors %q and %q", s.lo-end, prev, s.name)
		}
		end, prev = s.hi, s.name
	}
	if end < bodyLen {
		if prev == "" {
			return fmt.Errorf("%d bytes after a header that lists no tensors (trailing garbage or corrupt header)", bodyLen-end)
		}
		return fmt.Errorf("%d bytes after the last tensor %q (trailing garbage or corrupt header)", bodyLen-end, prev)
	}
	return nil
}

// FileError is a safetensors file that cannot be read as one: Path names the file, Err says
// what is wrong with it ("header length … runs past the end …").
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }
