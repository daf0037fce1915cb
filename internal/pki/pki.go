// Package pki makes the certificates of a deployment's TLS: a private CA,
// server certificates (for clients and for routes between servers) and
// client certificates (for mutual TLS). worksteal serve init writes them;
// the tests make theirs the same way, so no private key is checked in.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"time"
)

// Usage says what a certificate is for.
type Usage int

const (
	// Server certificates serve clients and also dial other servers
	// (routes), so they carry both server and client authentication.
	Server Usage = iota
	// Client certificates authenticate a client to a server that requires
	// mutual TLS.
	Client
)

// CA is a certificate authority made for one deployment.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// CertPEM is the CA's certificate, the file that clients and servers
	// trust (--tls-ca).
	CertPEM []byte
}

// NewCA makes a CA named name whose certificate is valid for validFor.
func NewCA(name string, validFor time.Duration) (*CA, error) {
	key, tmpl, err := newKeyAndTemplate(name, validFor)
	if err != nil {
		return nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	tmpl.BasicConstraintsValid = true
	tmpl.IsCA = true
	tmpl.MaxPathLenZero = true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, CertPEM: pemBlock("CERTIFICATE", der)}, nil
}

// LoadCA reads a CA that NewCA made from its certificate and key
// (CertPEM and KeyPEM), to issue more certificates.
func LoadCA(certPEM, keyPEMBytes []byte) (*CA, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEMBytes)
	if cb == nil || kb == nil {
		return nil, errors.New("pki: not a PEM certificate and key")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, err
	}
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok || !cert.IsCA || !key.PublicKey.Equal(cert.PublicKey) {
		return nil, errors.New("pki: the key is not the CA certificate's")
	}
	return &CA{cert: cert, key: key, CertPEM: certPEM}, nil
}

// KeyPEM returns the CA's private key, PEM-encoded: keep it offline, it
// signs new certificates.
func (ca *CA) KeyPEM() ([]byte, error) { return keyPEM(ca.key) }

// Issue makes a certificate signed by ca for name, valid for validFor: for
// a Server, hosts are the DNS names and IP addresses clients and other
// servers reach it by. It returns the certificate and its private key,
// PEM-encoded.
func (ca *CA) Issue(name string, hosts []string, usage Usage, validFor time.Duration) (certPEM, keyPEMBytes []byte, err error) {
	if usage == Server && len(hosts) == 0 {
		return nil, nil, errors.New("pki: a server certificate needs at least one host")
	}
	key, tmpl, err := newKeyAndTemplate(name, validFor)
	if err != nil {
		return nil, nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if usage == Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	kp, err := keyPEM(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), kp, nil
}

// newKeyAndTemplate makes a P-256 key and the part of a certificate that
// every certificate here shares: a random serial, the subject name, and a
// validity that starts an hour ago (clocks of a deployment drift).
func newKeyAndTemplate(name string, validFor time.Duration) (*ecdsa.PrivateKey, *x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	return key, &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name, Organization: []string{"worksteal"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validFor),
	}, nil
}

func keyPEM(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pemBlock("PRIVATE KEY", der), nil
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic("pki: no randomness: " + err.Error())
	}
	return n
}
