package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// DES-based crypt(3) as pgcrypto has it (FreeBSD's crypt-des): the
// traditional form (a 2-character salt, 25 DES encryptions of a zero
// block under the password's first 8 characters) and BSDi's extended one
// ("_", 4 characters of iteration count, 4 of salt, every character of
// the password folded into the key). The salt swaps bits between the two
// halves of each round's expansion, which is why Go's crypto/des cannot
// do it; desBlock is DES written from FIPS 46-3 with that swap.

// The tables of FIPS 46-3, bit 1 being the most significant.
var (
	desIP = [64]byte{58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6,
		64, 56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
		61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7}
	desFP = [64]byte{40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31, 38, 6, 46, 14, 54, 22, 62, 30,
		37, 5, 45, 13, 53, 21, 61, 29, 36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27,
		34, 2, 42, 10, 50, 18, 58, 26, 33, 1, 41, 9, 49, 17, 57, 25}
	desE = [48]byte{32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
		16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1}
	desP = [32]byte{16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
		2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25}
	desPC1 = [56]byte{57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27,
		19, 11, 3, 60, 52, 44, 36, 63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
		14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4}
	desPC2 = [48]byte{14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
		41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32}
	desShifts = [16]byte{1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1}
	desS      = [8][64]byte{
		{14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
			4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13},
		{15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
			0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9},
		{10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
			13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12},
		{7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
			10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14},
		{2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
			4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3},
		{12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
			9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13},
		{4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
			1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12},
		{13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
			7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11},
	}
)

// desPermute takes the bits of in (inBits wide) that table names, in
// order, into an output as wide as the table.
func desPermute(in uint64, inBits int, table []byte) uint64 {
	var out uint64
	for _, b := range table {
		out = out<<1 | in>>(inBits-int(b))&1
	}
	return out
}

// desKeySchedule is the 16 round keys of a 64-bit key, 48 bits each.
func desKeySchedule(key uint64) [16]uint64 {
	cd := desPermute(key, 64, desPC1[:])
	c, d := uint32(cd>>28), uint32(cd&0xfffffff)
	var ks [16]uint64
	for i, s := range desShifts {
		c = (c<<s | c>>(28-s)) & 0xfffffff
		d = (d<<s | d>>(28-s)) & 0xfffffff
		ks[i] = desPermute(uint64(c)<<28|uint64(d), 56, desPC2[:])
	}
	return ks
}

// desBlock encrypts a block with the round keys, the salt bits (a 24-bit
// mask, bit 0x800000 first) swapping bits between the halves of each
// round's expansion; saltBits 0 is plain DES.
func desBlock(block uint64, ks *[16]uint64, saltBits uint32) uint64 {
	b := desPermute(block, 64, desIP[:])
	l, r := uint32(b>>32), uint32(b)
	for _, k := range ks {
		e := desPermute(uint64(r), 32, desE[:])
		el, er := uint32(e>>24), uint32(e&0xffffff)
		swap := (el ^ er) & saltBits
		e = (uint64(el^swap)<<24 | uint64(er^swap)) ^ k
		var s uint64
		for i := range 8 {
			six := byte(e >> (42 - 6*i) & 0x3f)
			s = s<<4 | uint64(desS[i][six&0x20|six<<4&0x10|six>>1&0x0f])
		}
		l, r = r, l^uint32(desPermute(s, 32, desP[:]))
	}
	return desPermute(uint64(r)<<32|uint64(l), 64, desFP[:])
}

// cryptASCIIToBin is crypt-des's ascii_to_bin: a salt character's 6-bit
// value, 0 for a character outside the alphabet.
func cryptASCIIToBin(c byte) uint32 {
	switch {
	case c > 'z':
		return 0
	case c >= 'a':
		return uint32(c-'a') + 38
	case c > 'Z':
		return 0
	case c >= 'A':
		return uint32(c-'A') + 12
	case c > '9':
		return 0
	case c >= '.':
		return uint32(c - '.')
	}
	return 0
}

// desSaltBits spreads a 24-bit salt into the swap mask desBlock takes:
// the salt's bit 0 swaps the expansion's first bit.
func desSaltBits(salt uint32) uint32 {
	var bits uint32
	for i := range 24 {
		if salt>>i&1 != 0 {
			bits |= 0x800000 >> i
		}
	}
	return bits
}

// desCrypt is crypt() with a DES setting: traditional ("ab") or extended
// ("_" then 8 characters); shorter ones are an invalid salt, and settings
// whose characters there are not ASCII are refused.
func desCrypt(password, setting string) (string, error) {
	extended := strings.HasPrefix(setting, "_")
	used := 2
	if extended {
		used = 9
	}
	switch {
	case len(setting) < used || len(setting) < 2:
		return "", pgerror.New(pgerror.InvalidParameterValue, "invalid salt")
	case strings.ContainsFunc(setting[:used], func(r rune) bool { return r >= 0x80 }):
		return "", pgerror.Unsupported("crypt() with a DES salt of non-ASCII characters")
	}
	key := []byte(password)
	var keyBlock uint64
	for i := range 8 {
		var c byte
		if i < len(key) {
			c = key[i]
		}
		keyBlock = keyBlock<<8 | uint64(c<<1)
	}
	key = key[min(len(key), 8):]
	ks := desKeySchedule(keyBlock)
	var count, salt uint32
	var out strings.Builder
	if extended {
		for i := range 4 {
			count |= cryptASCIIToBin(setting[1+i]) << (6 * i)
			salt |= cryptASCIIToBin(setting[5+i]) << (6 * i)
		}
		for len(key) > 0 {
			keyBlock = desBlock(keyBlock, &ks, 0)
			for i := 0; i < 8 && len(key) > 0; i++ {
				keyBlock ^= uint64(key[0]<<1) << (56 - 8*i)
				key = key[1:]
			}
			ks = desKeySchedule(keyBlock)
		}
		if count == 0 {
			return "", pgerror.New(pgerror.ExternalRoutineInvocationException, "crypt(3) returned NULL")
		}
		out.WriteString(setting[:9])
	} else {
		count = 25
		salt = cryptASCIIToBin(setting[1])<<6 | cryptASCIIToBin(setting[0])
		out.WriteString(setting[:2])
	}
	saltBits := desSaltBits(salt)
	var block uint64
	for range count {
		block = desBlock(block, &ks, saltBits)
	}
	r0, r1 := uint32(block>>32), uint32(block)
	writeCrypt64BE(&out, r0>>8, 4)
	writeCrypt64BE(&out, r0<<16|r1>>16&0xffff, 4)
	writeCrypt64BE(&out, r1<<2, 3)
	return out.String(), nil
}

// writeCrypt64BE writes the low 6*n bits of v as n characters of
// crypt(3)'s base 64, most significant first, as crypt-des does.
func writeCrypt64BE(b *strings.Builder, v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		b.WriteByte(cryptAlphabet[v>>(6*i)&0x3f])
	}
}
