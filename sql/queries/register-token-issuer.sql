-- Records :issuer as an issuer of this database's tokens; nothing if it is known. Returns nothing.
insert into token_issuers (issuer) values (:issuer) on conflict (issuer) do nothing
