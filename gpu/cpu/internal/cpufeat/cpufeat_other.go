//go:build !amd64 || purego

package cpufeat

func detect() bool { return false }
