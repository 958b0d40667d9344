"""The self-signed certificate of `rummi serve --lan`: phones open the camera only on https.

Made on first use with the ``cryptography`` package and kept in the user's data folder
(:func:`rummi.places.tls_dir`), so a phone that accepted it once keeps trusting it. It names the
machine's LAN address, ``localhost`` and 127.0.0.1; at a venue where the machine gets another
address, a new certificate is made for it.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

#: How long a certificate is valid (browsers cap what they accept at about two years).
VALID_DAYS = 730


def lan_address() -> str:
    """This machine's address on its local network (127.0.0.1 when it has none).

    Asks the kernel which source address a route to a private address would use: a UDP
    ``connect`` sends no packet, it only picks the route.
    """
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if not ipaddress.ip_address(address).is_loopback:
                return address
    except OSError:
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def ensure_certificate(folder: Path, address: str) -> tuple[Path, Path]:
    """``(cert.pem, key.pem)`` in ``folder`` for ``address``, made now if missing or for another address."""
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    if cert_path.exists() and key_path.exists() and _names(cert_path, address):
        return cert_path, key_path
    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"rummi on {address}")])
    now = datetime.datetime.now(datetime.UTC)
    addresses = {ipaddress.ip_address(address), ipaddress.ip_address("127.0.0.1")}
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), *(x509.IPAddress(a) for a in sorted(addresses, key=str))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    descriptor = os.open(key_path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key_bytes)
    os.replace(key_path.with_suffix(".tmp"), key_path)
    cert_path.with_suffix(".tmp").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    os.replace(cert_path.with_suffix(".tmp"), cert_path)
    return cert_path, key_path


def _names(cert_path: Path, address: str) -> bool:
    """Whether the certificate is still valid and names ``address``."""
    try:
        certificate = x509.load_pem_x509_certificate(cert_path.read_bytes())
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return False
    fresh = certificate.not_valid_after_utc > datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=7)
    return fresh and ipaddress.ip_address(address) in names.get_values_for_type(x509.IPAddress)
