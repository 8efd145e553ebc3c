package weights

import (
	"fmt"
	"math"

	"kleinbild/internal/safefile"
)

// Mapping is a whole regular file mapped read-only: the mapping the safetensors reader uses,
// offered to the readers of other formats (GGUF). Where the platform has no mmap the file is
// read into memory instead.
type Mapping struct {
	Path   string
	data   []byte
	mapped bool
	unmap  func() error
}

// MapFile opens path through the guarded opener (a FIFO, device or folder is refused) and
// maps it read-only. An empty file maps to an empty slice.
func MapFile(path string) (*Mapping, error) {
	f, st, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	size := st.Size()
	if uint64(size) > math.MaxInt {
		return nil, fmt.Errorf("%s: %d bytes is too large to map on this platform", path, size)
	}
	data, unmap, err := mapFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return &Mapping{Path: path, data: data, mapped: mmapped, unmap: unmap}, nil
}

// Bytes is the file's content (a read-only view: writing to it faults). Nil after Close.
func (m *Mapping) Bytes() []byte { return m.data }

// Mapped reports whether Bytes is a memory mapping (false: a heap copy).
func (m *Mapping) Mapped() bool { return m.mapped }

// DontNeed advises the kernel that the pages holding b (a subslice of Bytes) may be dropped;
// they are re-read from the file if touched again. It does nothing for a heap copy.
func (m *Mapping) DontNeed(b []byte) error {
	if !m.mapped || m.data == nil {
		return nil
	}
	return dontNeed(m.data, b)
}

// Close unmaps the file; views of it must not be used afterwards. A second Close does nothing.
func (m *Mapping) Close() error {
	if m.unmap == nil {
		return nil
	}
	err := m.unmap()
	m.unmap, m.data = nil, nil
	return err
}
