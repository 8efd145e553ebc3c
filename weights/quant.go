package weights

import (
	"errors"
	"fmt"
	"sync"
)

// Quant is a tensor kept in a block-quantized format (a GGUF's Q8_0, Q4_K, ...) so that a
// backend can hold the packed blocks rather than a float32 copy.
type Quant struct {
	Type string // ggml type name: "Q4_0", "Q8_0", "Q4_K", ...
	Data []byte // the packed blocks of the elements in row-major order (a view: do not modify)
	// Decode dequantizes Data to little-endian float32 bytes (Numel * 4); it is called at
	// most once, when the tensor is first read as float.
	Decode func() ([]byte, error)
}

// lazyQuant is a tensor's packed form and its float32 data, made once on first use.
type lazyQuant struct {
	q    Quant
	once sync.Once
	err  error
}

func newLazy(q *Quant) *lazyQuant {
	if q == nil {
		return nil
	}
	return &lazyQuant{q: *q}
}

// Quantized returns the tensor's packed form, or nil for a tensor that is not kept packed.
// Its DType is then F32: Float32, ReadFloat32 and Bytes dequantize it (once).
func (t *Tensor) Quantized() *Quant {
	if t.quant == nil {
		return nil
	}
	q := t.quant.q
	return &q
}

// load dequantizes a packed tensor into data the first time it is read as float.
func (t *Tensor) load() error {
	l := t.quant
	if l == nil {
		return nil
	}
	l.once.Do(func() {
		var b []byte
		err := Guard(t.File, func() (err error) { b, err = l.q.Decode(); return err })
		if err == nil && len(b) != 4*t.Numel() {
			err = fmt.Errorf("decoded %d bytes, want %d", len(b), 4*t.Numel())
		}
		switch {
		case errors.Is(err, ErrFileChanged): // names the file already
			l.err = fmt.Errorf("tensor %q (%s): %w", t.Name, l.q.Type, err)
			return
		case err != nil:
			l.err = fmt.Errorf("%s: tensor %q (%s): %w", t.File, t.Name, l.q.Type, err)
			return
		}
		t.data = b
	})
	return l.err
}
