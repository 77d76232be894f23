-- Every issuer of this database's tokens: issuer.
select issuer from token_issuers
