package tokenizer

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"kleinbild/internal/safefile"
)

// maxTokenID bounds the ids accepted from files (Qwen3 uses 151669), so a corrupt file
// cannot make Load allocate an absurd id table.
const maxTokenID = 1<<24 - 1

// maxVocabHoles is the slack allowed between the number of vocabulary entries and their
// largest id (trained vocabularies number their tokens 0..n-1).
const maxVocabHoles = 1 << 16

// Load reads tokenizer.json (required) and tokenizer_config.json (optional) from dir, the
// model's tokenizer folder. Only the configuration Qwen2/Qwen3 tokenizers use is
// accepted: NFC (or another Unicode normal form, or none), the Qwen2 Split regex followed
// by a ByteLevel pre-tokenizer without regex, a byte-level BPE model without dropout or
// subword affixes, and a ByteLevel decoder. Anything else is reported as unsupported
// rather than tokenized differently from the reference.
func Load(dir string) (*Tokenizer, error) {
	path := filepath.Join(dir, "tokenizer.json")
	data, err := safefile.ReadRegular(path, safefile.MaxTokenizerBytes)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %s: %w", path, err)
	}
	cfgPath := filepath.Join(dir, "tokenizer_config.json")
	if err := t.applyConfig(cfgPath); err != nil {
		return nil, fmt.Errorf("tokenizer: %s: %w", cfgPath, err)
	}
	return t, nil
}

// Parse builds a tokenizer from the text of tokenizer.json and, when config is not nil, of
// tokenizer_config.json, with Load's checks: how a tokenizer shipped inside the binary
// (package bundled) is loaded.
func Parse(tokenizerJSON, config []byte) (*Tokenizer, error) {
	if len(tokenizerJSON) > safefile.MaxTokenizerBytes {
		return nil, fmt.Errorf("tokenizer: tokenizer.json is %d bytes, over %d", len(tokenizerJSON), safefile.MaxTokenizerBytes)
	}
	t, err := parse(string(tokenizerJSON))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: %w", err)
	}
	if config == nil {
		err = t.checkID(t.pad, "pad id")
	} else {
		err = t.applyConfigJSON(config)
	}
	if err != nil {
		return nil, fmt.Errorf("tokenizer: tokenizer_config.json: %w", err)
	}
	return t, nil
}

// sections holds what parse extracts from tokenizer.json: the big vocabulary and merges
// decoded by the scanner, every other section as raw JSON.
type sections struct {
	raw        map[string]string // top-level key -> raw value (not "model")
	model      map[string]string // model key -> raw value (not "vocab", "merges")
	vocab      map[string]int
	merges     [][2]string
	maxVocabID int
	haveVocab  bool
	haveMerges bool
	haveModel  bool
}

func scanSections(data string) (*sections, error) {
	sc := &jsonScanner{data: data}
	sec := &sections{raw: map[string]string{}, model: map[string]string{}}
	err := sc.object(func(key string) error {
		if key != "model" {
			raw, err := sc.skip()
			sec.raw[key] = raw
			return err
		}
		sec.haveModel = true
		if sc.peek() != '{' {
			return fmt.Errorf("model: want an object")
		}
		return sc.object(func(key string) error {
			switch key {
			case "vocab":
				sec.haveVocab = true
				return scanVocab(sc, sec)
			case "merges":
				sec.haveMerges = true
				return scanMerges(sc, sec)
			}
			raw, err := sc.skip()
			sec.model[key] = raw
			return err
		})
	})
	if err == nil {
		err = sc.end()
	}
	return sec, err
}

// sizeHint guesses the number of vocabulary entries from the file size (Qwen3: about 35
// bytes per entry over vocab and merges), to size the tables once.
func sizeHint(sc *jsonScanner) int { return min(len(sc.data)/32, 1<<20) }

func scanVocab(sc *jsonScanner, sec *sections) error {
	if sc.peek() != '{' {
		return fmt.Errorf("model.vocab: want an object of token -> id")
	}
	sec.vocab = make(map[string]int, sizeHint(sc))
	return sc.object(func(tok string) error {
		id, err := sc.uint(maxTokenID)
		if err != nil {
			return fmt.Errorf("model.vocab[%q]: %w", tok, err)
		}
		sec.vocab[tok] = id
		sec.maxVocabID = max(sec.maxVocabID, id)
		return nil
	})
}

// scanMerges accepts both spellings: "a b" strings (tokenizers < 0.20) and ["a", "b"].
func scanMerges(sc *jsonScanner, sec *sections) error {
	if sc.peek() != '[' {
		return fmt.Errorf("model.merges: want an array")
	}
	sec.merges = make([][2]string, 0, sizeHint(sc))
	return sc.array(func() error {
		i := len(sec.merges)
		switch sc.peek() {
		case '"':
			s, err := sc.str()
			if err != nil {
				return err
			}
			a, b, ok := strings.Cut(s, " ")
			if !ok || strings.Contains(b, " ") {
				return fmt.Errorf("model.merges[%d] = %q: want two tokens separated by one space", i, s)
			}
			sec.merges = append(sec.merges, [2]string{a, b})
			return nil
		case '[':
			sc.pos++
			a, err := sc.str()
			if err == nil {
				err = sc.expect(',')
			}
			var b string
			if err == nil {
				b, err = sc.str()
			}
			if err == nil {
				err = sc.expect(']')
			}
			if err != nil {
				return fmt.Errorf("model.merges[%d]: want a pair of strings: %w", i, err)
			}
			sec.merges = append(sec.merges, [2]string{a, b})
			return nil
		}
		return fmt.Errorf("model.merges[%d]: want a string or a pair of strings", i)
	})
}

// parse builds a Tokenizer from the text of a tokenizer.json file.
func parse(data string) (*Tokenizer, error) {
	if !utf8.ValidString(data) {
		return nil, errors.New("not valid UTF-8")
	}
	sec, err := scanSections(data)
	if err != nil {
		return nil, err
	}
	switch {
	case !sec.haveModel:
		return nil, errors.New("no model section")
	case !sec.haveVocab:
		return nil, errors.New("model has no vocab")
	case !sec.haveMerges:
		return nil, errors.New("model has no merges")
	case len(sec.vocab) == 0:
		return nil, errors.New("model.vocab is empty")
	case sec.maxVocabID > 2*len(sec.vocab)+maxVocabHoles:
		// The id table has maxVocabID+1 entries: keep it proportional to the file.
		return nil, fmt.Errorf("model.vocab: largest id %d for %d tokens; ids must be nearly dense", sec.maxVocabID, len(sec.vocab))
	}

	t := &Tokenizer{bytes: newByteLevel(), pad: PadID}
	if t.normalizer, err = parseNormalizer(sec.raw["normalizer"]); err != nil {
		return nil, err
	}
	if err := checkPreTokenizer(sec.raw["pre_tokenizer"]); err != nil {
		return nil, err
	}
	if err := checkByteLevel(sec.raw["post_processor"], "post_processor", true); err != nil {
		return nil, err
	}
	if err := checkByteLevel(sec.raw["decoder"], "decoder", false); err != nil {
		return nil, err
	}
	if err := t.buildModel(sec); err != nil {
		return nil, err
	}
	var added []addedToken
	if _, err := decodeSection(sec.raw["added_tokens"], "added_tokens", &added); err != nil {
		return nil, err
	}
	if err := t.setAddedTokens(added, sec.vocab); err != nil {
		return nil, err
	}
	return t, nil
}

// buildModel checks the BPE settings, resolves the merges to ids and fills the id table.
func (t *Tokenizer) buildModel(sec *sections) error {
	var cfg struct {
		Type                    string   `json:"type"`
		Dropout                 *float64 `json:"dropout"`
		ContinuingSubwordPrefix *string  `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string  `json:"end_of_word_suffix"`
		IgnoreMerges            bool     `json:"ignore_merges"`
	}
	for key, dst := range map[string]any{
		"type": &cfg.Type, "dropout": &cfg.Dropout, "continuing_subword_prefix": &cfg.ContinuingSubwordPrefix,
		"end_of_word_suffix": &cfg.EndOfWordSuffix, "ignore_merges": &cfg.IgnoreMerges,
	} {
		if _, err := decodeSection(sec.model[key], "model."+key, dst); err != nil {
			return err
		}
	}
	switch {
	case cfg.Type != "" && cfg.Type != "BPE":
		return fmt.Errorf("model: unsupported type %q (want BPE)", cfg.Type)
	case cfg.Dropout != nil && *cfg.Dropout != 0:
		return fmt.Errorf("model: BPE dropout %g is not supported", *cfg.Dropout)
	case cfg.ContinuingSubwordPrefix != nil && *cfg.ContinuingSubwordPrefix != "":
		return fmt.Errorf("model: continuing_subword_prefix %q is not supported", *cfg.ContinuingSubwordPrefix)
	case cfg.EndOfWordSuffix != nil && *cfg.EndOfWordSuffix != "":
		return fmt.Errorf("model: end_of_word_suffix %q is not supported", *cfg.EndOfWordSuffix)
	}

	m := &t.model
	m.bytes = t.bytes
	// Every byte must have its token: then unk_token and byte_fallback never apply.
	for b := range 256 {
		ch := string(t.bytes.toRune[b])
		id, ok := sec.vocab[ch]
		if !ok {
			return fmt.Errorf("model.vocab lacks the byte-level token %q for byte 0x%02X", ch, b)
		}
		m.byteID[b] = int32(id)
	}

	t.tokens = make([]string, sec.maxVocabID+1)
	for tok, id := range sec.vocab {
		if prev := t.tokens[id]; prev != "" {
			a, b := min(prev, tok), max(prev, tok)
			return fmt.Errorf("model.vocab: id %d is used by both %q and %q", id, a, b)
		}
		t.tokens[id] = tok
	}

	m.merges = make(map[uint64]mergeRule, len(sec.merges))
	var buf []byte
	guess := 0 // merged-token id minus rank; constant (256) in trained BPE vocabularies
	for rank, pair := range sec.merges {
		a, okA := sec.vocab[pair[0]]
		b, okB := sec.vocab[pair[1]]
		merged, okM := rank+guess, true
		if !isConcat(t.tokens, merged, pair[0], pair[1]) {
			buf = append(append(buf[:0], pair[0]...), pair[1]...)
			merged, okM = sec.vocab[string(buf)]
			guess = merged - rank
		}
		if !okA || !okB || !okM {
			missing := pair[0]
			if okA {
				missing = pair[1]
			}
			if okA && okB {
				missing = pair[0] + pair[1]
			}
			return fmt.Errorf("model.merges[%d] (%q %q): token %q is not in the vocab", rank, pair[0], pair[1], missing)
		}
		// Later duplicates win, as when tokenizers collects the merges into a map.
		m.merges[pairKey(int32(a), int32(b))] = mergeRule{rank: int32(rank), id: int32(merged)}
	}
	if cfg.IgnoreMerges {
		m.ignoreMerges = true
		m.vocab = sec.vocab
	}
	return nil
}

// isConcat reports whether tokens[id] exists and equals a+b.
func isConcat(tokens []string, id int, a, b string) bool {
	if id < 0 || id >= len(tokens) {
		return false
	}
	tok := tokens[id]
	return len(tok) == len(a)+len(b) && tok[:len(a)] == a && tok[len(a):] == b
}
