// Package testfix holds the hostile-file fixtures that tests of file handling share: a named
// pipe with no writer, a link to /dev/zero, and PNG files to read. Only _test.go files import
// it.
package testfix
