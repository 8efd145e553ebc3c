package torchrand

// Mersenne Twister MT19937 exactly as ATen's at::mt19937 (aten/src/ATen/core/MT19937RNGEngine.h).

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

type mt19937 struct {
	state [mtN]uint32
	next  int // index of the next state word to temper
	left  int // words left before the state must be regenerated (+1, like ATen)
}

// seed initialises the state like at::mt19937(seed): only the low 32 bits of seed are used.
func (m *mt19937) seed(seed uint64) {
	m.state[0] = uint32(seed)
	for j := 1; j < mtN; j++ {
		p := m.state[j-1]
		m.state[j] = 1812433253*(p^(p>>30)) + uint32(j)
	}
	m.left = 1
	m.next = 0
}

func twist(u, v uint32) uint32 {
	y := (u&mtUpperMask | v&mtLowerMask) >> 1
	if v&1 != 0 {
		y ^= mtMatrixA
	}
	return y
}

func (m *mt19937) nextState() {
	s := &m.state
	for j := 0; j < mtN-mtM; j++ {
		s[j] = s[j+mtM] ^ twist(s[j], s[j+1])
	}
	for j := mtN - mtM; j < mtN-1; j++ {
		s[j] = s[j+mtM-mtN] ^ twist(s[j], s[j+1])
	}
	s[mtN-1] = s[mtM-1] ^ twist(s[mtN-1], s[0])
	m.left = mtN
	m.next = 0
}

// uint32 returns the next tempered 32-bit output.
func (m *mt19937) uint32() uint32 {
	m.left--
	if m.left == 0 {
		m.nextState()
	}
	y := m.state[m.next]
	m.next++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}
