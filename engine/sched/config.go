package sched

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"kleinbild/internal/safefile"
)

// Config is what a model's scheduler/scheduler_config.json (diffusers'
// FlowMatchEulerDiscreteScheduler) decides for the default "flow" schedule.
//
// Flux2KleinPipeline passes the scheduler the sigmas linspace(1, 1/n, n) and mu =
// EmpiricalMu(seqLen, n). With use_dynamic_shifting the scheduler shifts the sigmas by mu
// (time_shift_type "exponential"); without it, statically by shift. base_shift, max_shift,
// base_image_seq_len and max_image_seq_len only feed the FLUX.1 pipelines' mu, so they are
// checked for type and otherwise ignored, as the FLUX.2 pipeline ignores them. Settings
// that would change the schedule in ways not implemented here are refused (see
// ParseConfig).
//
// The zero Config is what the FLUX.2-klein models ship: dynamic exponential shifting.
type Config struct {
	// StaticShift is set when use_dynamic_shifting is false: the sigmas are then shifted by
	// Shift instead of by the empirical mu.
	StaticShift bool
	// Shift is shift, the static shift factor (diffusers' default 1: no shift), positive;
	// 0 without StaticShift.
	Shift float64
}

// LoadConfig reads and checks a scheduler_config.json, given the file or the folder holding
// it (like the models' LoadConfig). Errors name the file and the field.
func LoadConfig(path string) (Config, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "scheduler_config.json")
	}
	data, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if err != nil {
		return Config{}, &ConfigError{Path: path, Err: err}
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, &ConfigError{Path: path, Err: err, Parsed: true}
	}
	return c, nil
}

// ConfigError is a scheduler config that cannot be read (Err names the file) or, Parsed,
// whose content is refused.
type ConfigError struct {
	Path   string
	Err    error
	Parsed bool
}

func (e *ConfigError) Error() string {
	if e.Parsed {
		return fmt.Sprintf("scheduler config %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("scheduler config: %v", e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// schedulerFields lists the keys a FlowMatchEulerDiscreteScheduler config may carry. Keys
// starting with "_" (diffusers' bookkeeping: _name_or_path, _use_default_values, …) never
// change the numerics and are ignored, as diffusers ignores them; any other key is refused
// rather than silently ignored, since it may be a setting this implementation lacks.
var schedulerFields = map[string]bool{
	"_class_name": true, "_diffusers_version": true, "num_train_timesteps": true, "shift": true,
	"use_dynamic_shifting": true, "base_shift": true, "max_shift": true, "base_image_seq_len": true,
	"max_image_seq_len": true, "invert_sigmas": true, "shift_terminal": true, "use_karras_sigmas": true,
	"use_exponential_sigmas": true, "use_beta_sigmas": true, "time_shift_type": true,
	"stochastic_sampling": true, "use_flow_sigmas": true,
}

// rawConfig mirrors scheduler_config.json; pointers tell absent (or null) from zero.
type rawConfig struct {
	ClassName            *string  `json:"_class_name"`
	NumTrainTimesteps    *int     `json:"num_train_timesteps"`
	Shift                *float64 `json:"shift"`
	UseDynamicShifting   *bool    `json:"use_dynamic_shifting"`
	BaseShift            *float64 `json:"base_shift"`
	MaxShift             *float64 `json:"max_shift"`
	BaseImageSeqLen      *int     `json:"base_image_seq_len"`
	MaxImageSeqLen       *int     `json:"max_image_seq_len"`
	InvertSigmas         *bool    `json:"invert_sigmas"`
	ShiftTerminal        *float64 `json:"shift_terminal"`
	UseKarrasSigmas      *bool    `json:"use_karras_sigmas"`
	UseExponentialSigmas *bool    `json:"use_exponential_sigmas"`
	UseBetaSigmas        *bool    `json:"use_beta_sigmas"`
	TimeShiftType        *string  `json:"time_shift_type"`
	StochasticSampling   *bool    `json:"stochastic_sampling"`
	UseFlowSigmas        *bool    `json:"use_flow_sigmas"`
}

// ParseConfig checks the text of a scheduler_config.json. Absent fields take diffusers'
// defaults (so "{}" means no dynamic shifting and shift 1). Refused, with the field named:
// anything but a JSON object, unknown fields, another _class_name, num_train_timesteps
// other than 1000, use_karras_sigmas, use_exponential_sigmas, use_beta_sigmas,
// invert_sigmas, stochastic_sampling or use_flow_sigmas true, a non-zero shift_terminal,
// time_shift_type other than "exponential", and a shift that is not a positive number.
func ParseConfig(data []byte) (Config, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Config{}, fmt.Errorf("JSON %s where an object is expected", te.Value)
		}
		return Config{}, fmt.Errorf("malformed JSON: %w", err)
	}
	if fields == nil {
		return Config{}, errors.New("JSON null where an object is expected")
	}
	var unknown []string
	for k := range fields {
		if !schedulerFields[k] && !strings.HasPrefix(k, "_") {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Config{}, fmt.Errorf("unknown field %s: not a FlowMatchEulerDiscreteScheduler setting", strings.Join(unknown, ", "))
	}
	var r rawConfig
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Config{}, fmt.Errorf("field %q: JSON %s where %s is expected", te.Field, te.Value, te.Type)
		}
		return Config{}, fmt.Errorf("malformed JSON: %w", err)
	}
	return r.validate()
}

func (r *rawConfig) validate() (Config, error) {
	if r.ClassName != nil && *r.ClassName != "FlowMatchEulerDiscreteScheduler" {
		return Config{}, fmt.Errorf(`field "_class_name" is %q, want "FlowMatchEulerDiscreteScheduler"`, *r.ClassName)
	}
	if r.NumTrainTimesteps != nil && *r.NumTrainTimesteps != NumTrainTimesteps {
		return Config{}, fmt.Errorf(`field "num_train_timesteps" is %d: only %d is supported`, *r.NumTrainTimesteps, NumTrainTimesteps)
	}
	for _, f := range []struct {
		name string
		v    *bool
		why  string
	}{
		{"use_karras_sigmas", r.UseKarrasSigmas, "Karras sigmas are not supported"},
		{"use_exponential_sigmas", r.UseExponentialSigmas, "exponential sigmas are not supported"},
		{"use_beta_sigmas", r.UseBetaSigmas, "beta sigmas are not supported"},
		{"invert_sigmas", r.InvertSigmas, "inverted sigmas are not supported"},
		{"stochastic_sampling", r.StochasticSampling, "stochastic sampling is not supported"},
		{"use_flow_sigmas", r.UseFlowSigmas, "the scheduler's own flow sigmas are not supported"},
	} {
		if f.v != nil && *f.v {
			return Config{}, fmt.Errorf("field %q is true: %s", f.name, f.why)
		}
	}
	if r.ShiftTerminal != nil && *r.ShiftTerminal != 0 {
		return Config{}, fmt.Errorf(`field "shift_terminal" is %v: stretching the schedule to a terminal value is not supported`, *r.ShiftTerminal)
	}
	if r.TimeShiftType != nil {
		switch *r.TimeShiftType {
		case "exponential":
		case "linear":
			return Config{}, errors.New(`field "time_shift_type" is "linear": only "exponential" is supported`)
		default:
			return Config{}, fmt.Errorf(`field "time_shift_type" is %q, want "exponential"`, *r.TimeShiftType)
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"base_shift", r.BaseShift}, {"max_shift", r.MaxShift}} {
		if f.v != nil && (math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			return Config{}, fmt.Errorf("field %q is %v, want a finite number", f.name, *f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"base_image_seq_len", r.BaseImageSeqLen}, {"max_image_seq_len", r.MaxImageSeqLen}} {
		if f.v != nil && *f.v <= 0 {
			return Config{}, fmt.Errorf("field %q is %d, want a positive integer", f.name, *f.v)
		}
	}
	c := Config{StaticShift: r.UseDynamicShifting == nil || !*r.UseDynamicShifting, Shift: 1}
	if r.Shift != nil {
		c.Shift = *r.Shift
	}
	if !(c.Shift > 0) || math.IsInf(c.Shift, 0) || c.Shift > 1e6 {
		return Config{}, fmt.Errorf(`field "shift" is %v, want a positive number`, c.Shift)
	}
	if !c.StaticShift {
		c.Shift = 0 // unused: keep the Config canonical
	}
	return c, nil
}

// Flow is the default schedule under c for n steps and imageSeqLen target tokens: the
// package's Flow with dynamic shifting, else linspace(1, 1/n, n) in float32 shifted
// statically as the scheduler does (shift·s / (1 + (shift−1)·s), float32 arithmetic with
// the Python scalars as float32). For n < 1 it returns an empty Schedule.
func (c Config) Flow(n, imageSeqLen int) Schedule {
	if !c.StaticShift {
		return Flow(n, imageSeqLen)
	}
	if n < 1 {
		return Schedule{}
	}
	a, b := float32(c.Shift), float32(c.Shift-1)
	sig := make([]float32, n+1)
	for i, v := range linspace(1, 1/float64(n), n) {
		t := float32(v)
		sig[i] = float32(a*t) / float32(1+float32(b*t))
	}
	return fromSigmas(sig)
}

// ByName is the package's ByName with the "flow" schedule (and "") following c.
func (c Config) ByName(name string, n, seqLen int) (Schedule, error) {
	s, err := ByName(name, n, seqLen)
	if err != nil || (name != "" && name != "flow") {
		return s, err
	}
	return c.Flow(n, seqLen), nil
}
