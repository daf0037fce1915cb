package pki_test

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"time"

	"github.com/worksteal/worksteal/internal/pki"
)

// A CA and a server certificate for the names clients use.
func ExampleCA_Issue() {
	ca, err := pki.NewCA("example CA", time.Hour)
	if err != nil {
		panic(err)
	}
	certPEM, _, err := ca.Issue("server", []string{"nats.example.com", "10.0.0.1"}, pki.Server, time.Hour)
	if err != nil {
		panic(err)
	}
	block, _ := pem.Decode(certPEM)
	cert, _ := x509.ParseCertificate(block.Bytes)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	_, err = cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "nats.example.com"})
	fmt.Println(cert.DNSNames, cert.IPAddresses, err)
	// Output: [nats.example.com] [10.0.0.1] <nil>
}

// A CA read back from its files issues a client certificate later.
func ExampleLoadCA() {
	ca, _ := pki.NewCA("example CA", time.Hour)
	keyPEM, _ := ca.KeyPEM()
	again, err := pki.LoadCA(ca.CertPEM, keyPEM)
	if err != nil {
		panic(err)
	}
	certPEM, _, err := again.Issue("alice", nil, pki.Client, time.Hour)
	block, _ := pem.Decode(certPEM)
	cert, _ := x509.ParseCertificate(block.Bytes)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	_, verr := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	fmt.Println(cert.Subject.CommonName, err, verr)
	// Output: alice <nil> <nil>
}
