package weights

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// OutTensor is a tensor to write: exactly one of F32, BF16, I64 or U8 is set.
type OutTensor struct {
	Name  string
	Shape []int
	F32   []float32
	BF16  []uint16
	I64   []int64
	U8    []uint8
}

func (t OutTensor) dtype() (DType, int) {
	switch {
	case t.F32 != nil:
		return F32, len(t.F32)
	case t.BF16 != nil:
		return BF16, len(t.BF16)
	case t.I64 != nil:
		return I64, len(t.I64)
	default:
		return U8, len(t.U8)
	}
}

// WriteFile writes tensors as a safetensors file atomically: a temporary file in the same
// folder, synced, then renamed over path. Tensors are stored sorted by name.
func WriteFile(path string, tensors []OutTensor, metadata map[string]string) error {
	ts := append([]OutTensor(nil), tensors...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off uint64
	for _, t := range ts {
		dt, n := t.dtype()
		if n != numel(t.Shape) {
			return fmt.Errorf("write %s: tensor %q has %d values for shape %v", path, t.Name, n, t.Shape)
		}
		if _, dup := header[t.Name]; dup {
			return fmt.Errorf("write %s: duplicate tensor %q", path, t.Name)
		}
		size := uint64(n * dt.Size())
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		header[t.Name] = map[string]any{"dtype": dt.String(), "shape": shape, "data_offsets": []uint64{off, off + size}}
		off += size
	}
	hj, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	return WriteAtomic(path, func(w *bufio.Writer) error {
		var lb [8]byte
		binary.LittleEndian.PutUint64(lb[:], uint64(len(hj)))
		w.Write(lb[:])
		w.Write(hj)
		var b [8]byte
		for _, t := range ts {
			switch dt, _ := t.dtype(); dt {
			case F32:
				for _, v := range t.F32 {
					binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
					w.Write(b[:4])
				}
			case BF16:
				for _, v := range t.BF16 {
					binary.LittleEndian.PutUint16(b[:], v)
					w.Write(b[:2])
				}
			case I64:
				for _, v := range t.I64 {
					binary.LittleEndian.PutUint64(b[:], uint64(v))
					w.Write(b[:8])
				}
			case U8:
				w.Write(t.U8)
			}
		}
		return nil
	})
}

// WriteAtomic creates path through a temporary file in the same folder: fill writes the
// content, then the file is flushed, synced and renamed into place. On any error the
// temporary file is removed and an existing file at path is left untouched.
func WriteAtomic(path string, fill func(w *bufio.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err = fill(w); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
