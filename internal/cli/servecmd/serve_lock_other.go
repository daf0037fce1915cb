//go:build !unix

package servecmd

import "os"

// tryLock: without flock, the store is not locked on this platform (give
// each server its own --store).
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) {}
