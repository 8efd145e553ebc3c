package weights

// ParseIndexPairs exposes parseIndex to the external tests: (tensor, shard) pairs.
func ParseIndexPairs(raw []byte) ([][2]string, error) {
	entries, err := parseIndex(raw)
	out := make([][2]string, len(entries))
	for i, e := range entries {
		out[i] = [2]string{e.tensor, e.shard}
	}
	return out, err
}
