// Written by `npm run sql:types` from the files of sql/queries, as PostgreSQL describes each statement: its
// parameters and its row. Do not edit; change the query, or its header's `-- not null:` line, and run it again.
export type QueryTypes = {
  'create-import-creatives-staging': {
    params: {  };
    row: {  };
  };
  'create-import-staging': {
    params: {  };
    row: {  };
  };
  'analyze-catalogue': {
    params: {  };
    row: {  };
  };
  'analyze-fact-table': {
    params: { "table": string | null };
    row: { "analyze_fact_table": string | null };
  };
  'analyze-facts': {
    params: { "all": boolean | null };
    row: { "table_name": string };
  };
  'analyze-import-staging': {
    params: {  };
    row: {  };
  };
  'analyze-rates': {
    params: {  };
    row: {  };
  };
  'catalogue-bump-version': {
    params: { "org": string | null };
    row: {  };
  };
  'catalogue-campaigns': {
    params: { "org": string | null };
    row: { "id": string; "key": string };
  };
  'catalogue-clear-base-metric': {
    params: { "org": string | null; "metric": string | null };
    row: {  };
  };
  'catalogue-delete-base-metric': {
    params: { "org": string | null; "metric": string | null };
    row: {  };
  };
  'catalogue-delete-metric': {
    params: { "org": string | null; "metric": string | null };
    row: {  };
  };
  'catalogue-delete-report': {
    params: { "org": string | null; "report": string | null };
    row: {  };
  };
  'catalogue-delete-segment': {
    params: { "org": string | null; "segment": string | null };
    row: {  };
  };
  'catalogue-lock': {
    params: { "org": string | null };
    row: { "id": string };
  };
  'catalogue-read': {
    params: { "org": string | null };
    row: { "adAccounts": unknown; "baseMetrics": unknown; "metrics": unknown; "segments": unknown; "reports": unknown };
  };
  'catalogue-save-ad-account': {
    params: { "org": string | null; "platform": string | null; "externalId": string | null; "name": string | null; "currency": string | null; "timeZone": string | null };
    row: { "id": string };
  };
  'catalogue-save-base-metric': {
    params: { "org": string | null; "name": string | null; "displayName": string | null; "kind": string | null; "description": string | null; "slot": number | null; "whole": boolean | null; "conversionDerived": boolean | null };
    row: {  };
  };
  'catalogue-save-metric': {
    params: { "org": string | null; "name": string | null; "displayName": string | null; "kind": string | null; "unit": string | null; "description": string | null; "formula": string | null };
    row: {  };
  };
  'catalogue-save-report': {
    params: { "id": string | null; "org": string | null; "name": string | null; "description": string | null; "kind": string | null; "currency": string | null; "metrics": string[] | null; "groupings": string[] | null; "adAccounts": string[] | null; "segments": string[] | null };
    row: { "id": string };
  };
  'catalogue-save-segment': {
    params: { "id": string | null; "org": string | null; "name": string | null; "description": string | null; "campaigns": string[] | null };
    row: { "id": string };
  };
  'charge-quota-batch': {
    params: { "org": string | null; "window": (Date | string) | null; "clients": string[] | null; "costs": number[] | null; "leases": number[] | null };
    row: { "outcome": string; "budget": number; "used": number; "leased": number; "reportsVersion": number };
  };
  'check-health': {
    params: {  };
    row: { "ok": number | null };
  };
  'cli-list-organizations': {
    params: {  };
    row: { "id": string | null; "name": string | null; "currency": string | null; "plan": string | null; "locked": boolean | null; "budgetPerHour": number | null };
  };
  'create-client-secret': {
    params: { "hash": Uint8Array | null; "expires": (Date | string) | null; "client": string | null };
    row: { "id": string };
  };
  'create-client': {
    params: { "id": string | null; "org": string | null; "name": string | null; "scopes": string[] | null; "reportsAll": boolean | null; "reportIds": string[] | null; "adAccountsAll": boolean | null; "adAccountIds": string[] | null };
    row: { "id": string };
  };
  'create-organization': {
    params: { "name": string | null; "currency": string | null };
    row: { "id": string };
  };
  'create-signing-key': {
    params: { "kid": string | null; "secret": Uint8Array | null };
    row: { "kid": string };
  };
  'create-subscription': {
    params: { "org": string | null; "plan": string | null };
    row: {  };
  };
  'defer-rollups': {
    params: {  };
    row: { "defer_rollups": string | null };
  };
  'delete-demo-rates': {
    params: { "currencies": string[] | null };
    row: { "currencies": string[] };
  };
  'delete-organization': {
    params: { "org": string | null };
    row: { "clients": number | null; "factRows": number | null };
  };
  'demo-add-ad-account': {
    params: { "id": string | null; "org": string | null; "platform": string | null; "externalId": string | null; "name": string | null; "currency": string | null; "status": string | null };
    row: {  };
  };
  'demo-add-campaign': {
    params: { "id": string | null; "org": string | null; "adAccount": string | null; "externalId": string | null; "name": string | null; "status": string | null };
    row: {  };
  };
  'demo-add-creative': {
    params: { "id": string | null; "org": string | null; "campaign": string | null; "externalId": string | null; "name": string | null; "format": string | null };
    row: {  };
  };
  'demo-add-custom-metric': {
    params: { "org": string | null; "name": string | null; "displayName": string | null; "kind": string | null; "unit": string | null; "description": string | null; "formula": string | null };
    row: {  };
  };
  'demo-add-organization': {
    params: { "id": string | null; "name": string | null; "currency": string | null };
    row: {  };
  };
  'demo-add-report-ad-account': {
    params: { "org": string | null; "report": string | null; "adAccount": string | null };
    row: {  };
  };
  'demo-add-report-segment': {
    params: { "org": string | null; "report": string | null; "segment": string | null };
    row: {  };
  };
  'demo-add-report': {
    params: { "id": string | null; "org": string | null; "name": string | null; "description": string | null; "kind": string | null; "currency": string | null; "metrics": string[] | null; "groupings": string[] | null };
    row: {  };
  };
  'demo-add-segment-campaign': {
    params: { "org": string | null; "segment": string | null; "campaign": string | null };
    row: {  };
  };
  'demo-add-segment': {
    params: { "id": string | null; "org": string | null; "name": string | null; "description": string | null };
    row: {  };
  };
  'demo-add-subscription': {
    params: { "org": string | null; "plan": string | null };
    row: {  };
  };
  'demo-lock': {
    params: {  };
    row: { "pg_advisory_xact_lock": string | null };
  };
  'facts-resume-point': {
    params: {  };
    row: { "resume": string };
  };
  'find-client-credentials': {
    params: { "now": (Date | string) | null; "id": string | null };
    row: { "id": string; "organization_id": string; "scopes": string[]; "reports_all": boolean; "report_ids": string[]; "ad_accounts_all": boolean; "ad_account_ids": string[]; "revoked_at": Date | null; "secret_hashes": Uint8Array[] };
  };
  'find-copy-target-contents': {
    params: {  };
    row: { "tables": number; "readout": boolean };
  };
  'find-demo-client': {
    params: { "org": string | null };
    row: { "id": string };
  };
  'find-import-currency-conflict': {
    params: { "org": string | null };
    row: { "line": number | null; "existing": string; "given": string | null; "platform": string; "external_id": string; "name": string };
  };
  'find-installation-rows': {
    params: {  };
    row: { "installed": boolean };
  };
  'find-organization-ad-accounts': {
    params: { "org": string | null; "ids": string[] | null };
    row: { "id": string };
  };
  'find-organization-reports': {
    params: { "org": string | null; "ids": string[] | null };
    row: { "id": string };
  };
  'find-unconvertible-currencies': {
    params: { "org": string | null };
    row: { "currency": string; "needed_from": string | null; "first_rate": string | null; "organizations": string[] };
  };
  'generate-entities': {
    params: { "org": string | null; "currencies": string[] | null; "accounts": number | null; "campaigns": number | null; "creatives": number | null };
    row: {  };
  };
  'generate-facts': {
    params: { "from": (Date | string) | null; "to": (Date | string) | null; "org": string | null };
    row: { "rows": number };
  };
  'generate-fx-rates': {
    params: { "currency": string | null; "usdPerUnit": (string | number) | null; "from": (Date | string) | null; "to": (Date | string) | null };
    row: { "rows": number | null };
  };
  'get-backend': {
    params: {  };
    row: { "pid": number | null; "embedded": boolean | null };
  };
  'get-nearest-secret-expiry': {
    params: { "client": string | null; "now": (Date | string) | null };
    row: { "nearest": Date | null };
  };
  'get-organization-record': {
    params: { "org": string | null };
    row: { "item": unknown };
  };
  'get-organization': {
    params: { "id": string | null };
    row: { "id": string; "name": string; "currency": string; "time_zone": string; "created_at": Date };
  };
  'get-quota-standing': {
    params: { "window": (Date | string) | null; "org": string | null };
    row: { "budget": number; "used": number };
  };
  'get-report-fingerprint': {
    params: { "snapshot": string | null; "adAccountsAll": boolean | null; "adAccountIds": string[] | null; "report": string | null; "org": string | null; "reportsAll": boolean | null; "reportIds": string[] | null };
    row: { "snapshot": string | null; "fingerprint": string | null };
  };
  'get-report-scope': {
    params: { "adAccountsAll": boolean | null; "adAccountIds": string[] | null; "report": string | null; "org": string | null; "reportsAll": boolean | null; "reportIds": string[] | null };
    row: { "id": string; "name": string; "kind": string; "currency": string; "metrics": string[]; "groupings": string[]; "version": string; "accounts": unknown; "segments": unknown; "custom_metrics": unknown; "fingerprint": string; "snapshot": string | null };
  };
  'get-report-span': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null };
    row: { "first": string | null; "last": string | null };
  };
  'get-report': {
    params: { "adAccountsAll": boolean | null; "adAccountIds": string[] | null; "report": string | null; "org": string | null; "reportsAll": boolean | null; "reportIds": string[] | null };
    row: { "item": unknown; "version": number };
  };
  'get-subscription': {
    params: { "org": string | null };
    row: { "code": string; "name": string; "public_api": boolean; "conversion_metrics": boolean; "budget": number; "locked": boolean };
  };
  'import-accounts': {
    params: { "org": string | null };
    row: { "id": string };
  };
  'import-campaigns': {
    params: { "org": string | null; "withStatus": boolean | null };
    row: {  };
  };
  'import-creatives': {
    params: { "org": string | null };
    row: {  };
  };
  'import-facts': {
    params: { "org": string | null };
    row: { "repeated_days": number };
  };
  'list-ad-accounts': {
    params: { "org": string | null; "adAccountsAll": boolean | null; "adAccountIds": string[] | null; "platform": string | null; "size": (string | number) | null; "page": (string | number) | null };
    row: { "total": number | null; "items": unknown };
  };
  'list-all-signing-keys': {
    params: {  };
    row: { "kid": string; "createdAt": string | null; "current": boolean | null; "retiredAt": string | null };
  };
  'list-base-metrics': {
    params: { "org": string | null };
    row: { "name": string; "slot": number; "kind": string; "whole": boolean };
  };
  'list-campaigns': {
    params: { "org": string | null; "adAccountsAll": boolean | null; "adAccountIds": string[] | null; "adAccount": string | null; "name": string | null; "size": (string | number) | null; "page": (string | number) | null };
    row: { "total": number | null; "items": unknown };
  };
  'list-clients': {
    params: { "org": string | null };
    row: { "id": string; "name": string; "scopes": string[]; "reports_all": boolean; "report_ids": string[]; "ad_accounts_all": boolean; "ad_account_ids": string[]; "created_at": Date; "revoked_at": Date | null; "secrets": unknown };
  };
  'list-copied-tables': {
    params: {  };
    row: { "name": string; "columns": string[]; "parents": string[] };
  };
  'list-fx-coverage': {
    params: {  };
    row: { "currency": string; "first": string; "last": string; "days": number; "sources": string[] };
  };
  'list-metric-display-names': {
    params: { "org": string | null };
    row: { "name": string; "display_name": string };
  };
  'list-organization-metrics': {
    params: { "org": string | null; "size": (string | number) | null; "page": (string | number) | null };
    row: { "total": number | null; "items": unknown };
  };
  'list-organizations': {
    params: { "org": string | null; "size": (string | number) | null; "page": (string | number) | null };
    row: { "total": number | null; "items": unknown };
  };
  'list-plans': {
    params: {  };
    row: { "code": string };
  };
  'list-reports': {
    params: { "org": string | null; "reportsAll": boolean | null; "reportIds": string[] | null; "adAccountsAll": boolean | null; "adAccountIds": string[] | null; "size": (string | number) | null; "page": (string | number) | null };
    row: { "total": number; "items": unknown; "version": number };
  };
  'list-revoked-clients': {
    params: {  };
    row: { "ids": string[] | null; "read_at": Date | null };
  };
  'list-segments': {
    params: { "org": string | null; "adAccountsAll": boolean | null; "adAccountIds": string[] | null; "size": (string | number) | null; "page": (string | number) | null };
    row: { "total": number | null; "items": unknown };
  };
  'list-signing-keys': {
    params: {  };
    row: { "kid": string; "secret": Uint8Array; "created_at": Date; "retired_at_ms": number | null };
  };
  'list-system-metrics': {
    params: { "size": (string | number) | null; "page": (string | number) | null };
    row: { "total": number | null; "items": unknown };
  };
  'list-token-issuers': {
    params: {  };
    row: { "issuer": string };
  };
  'lock-signing-keys': {
    params: {  };
    row: {  };
  };
  'lock-writers': {
    params: {  };
    row: { "locked": boolean };
  };
  'mark-fetched': {
    params: { "at": (Date | string) | null; "adAccounts": string[] | null };
    row: {  };
  };
  'mark-organization-fetched': {
    params: { "at": (Date | string) | null; "org": string | null };
    row: {  };
  };
  'mark-updates-changing': {
    params: {  };
    row: { "set_config": string | null };
  };
  'rebuild-deferred-rollups': {
    params: {  };
    row: { "rebuild_deferred_rollups": string | null };
  };
  'refund-quota': {
    params: { "org": string | null; "client": string | null; "window": (Date | string) | null; "units": number | null };
    row: { "budget": number; "used": number };
  };
  'register-token-issuer': {
    params: { "issuer": string | null };
    row: {  };
  };
  'report-data-ad-account': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "nameFilter": string | null };
    row: { "adAccountId": string; "adAccountName": string; "platform": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-campaign': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "nameFilter": string | null };
    row: { "campaignId": string; "campaignName": string; "adAccountId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-creative-one-currency': {
    params: { "video": boolean | null; "accountIds": string[] | null; "currency": string | null; "from": (Date | string) | null; "to": (Date | string) | null; "campaignIds": string[] | null; "nameFilter": string | null };
    row: { "creativeId": string; "creativeName": string; "campaignId": string; "externalId": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-creative-summed': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "video": boolean | null; "nameFilter": string | null };
    row: { "creativeId": string; "creativeName": string; "campaignId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-creative': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "video": boolean | null; "nameFilter": string | null };
    row: { "creativeId": string | null; "creativeName": string; "campaignId": string; "externalId": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-month': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "nameFilter": string | null };
    row: { "month": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-segment': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "segmentIds": string[] | null; "nameFilter": string | null };
    row: { "segmentId": string; "segmentName": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-total': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "nameFilter": string | null };
    row: { "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-days-campaign': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "interval": string | null; "changedSince": (Date | string) | null; "nameFilter": string | null };
    row: { "period": string | null; "campaignId": string; "campaignName": string; "adAccountId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-days-creative': {
    params: { "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "interval": string | null; "changedSince": (Date | string) | null; "video": boolean | null; "nameFilter": string | null };
    row: { "period": string | null; "creativeId": string | null; "creativeName": string; "campaignId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-ad-account': {
    params: { "interval": string | null; "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "changedSince": (Date | string) | null; "nameFilter": string | null };
    row: { "period": string | null; "adAccountId": string; "adAccountName": string; "platform": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-campaign': {
    params: { "interval": string | null; "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "changedSince": (Date | string) | null; "nameFilter": string | null };
    row: { "period": string | null; "campaignId": string; "campaignName": string; "adAccountId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-creative': {
    params: { "interval": string | null; "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "changedSince": (Date | string) | null; "video": boolean | null; "nameFilter": string | null };
    row: { "period": string | null; "creativeId": string | null; "creativeName": string; "campaignId": string; "externalId": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-segment': {
    params: { "interval": string | null; "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "changedSince": (Date | string) | null; "segmentIds": string[] | null; "nameFilter": string | null };
    row: { "period": string | null; "segmentId": string; "segmentName": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-total': {
    params: { "interval": string | null; "accountIds": string[] | null; "campaignIds": string[] | null; "from": (Date | string) | null; "to": (Date | string) | null; "currency": string | null; "changedSince": (Date | string) | null; "nameFilter": string | null };
    row: { "period": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'revoke-client-secret': {
    params: { "client": string | null; "secret": string | null };
    row: { "id": string; "revoked_at": Date | null };
  };
  'revoke-client': {
    params: { "client": string | null };
    row: { "id": string; "revoked_at": Date | null };
  };
  'rotate-signing-key': {
    params: { "retiresInS": number | null; "kid": string | null; "secret": Uint8Array | null };
    row: { "kid": string; "retired": number | null };
  };
  'set-connection-status': {
    params: { "status": string | null; "adAccount": string | null };
    row: { "id": string; "connection_status": string };
  };
  'set-plan': {
    params: { "plan": string | null; "budget": number | null; "org": string | null };
    row: { "organization_id": string; "plan_code": string; "budget": number | null };
  };
  'set-subscription-lock': {
    params: { "locked": boolean | null; "org": string | null };
    row: { "organization_id": string; "locked": boolean };
  };
  'stage-import-creatives': {
    params: { "creative": number[] | null; "line": number[] | null; "platform": string[] | null; "accountExternalId": string[] | null; "accountName": string[] | null; "currency": string[] | null; "accountFirstLine": number[] | null; "campaignExternalId": string[] | null; "campaignName": string[] | null; "campaignStatus": string[] | null; "creativeExternalId": string[] | null; "creativeName": string[] | null; "format": string[] | null; "repeats": string[] | null };
    row: {  };
  };
  'stage-import-rows': {
    params: { "lines": number[] | null; "creatives": number[] | null; "days": ((Date | string)[]) | null; "declared": string[] | null; "impressions": ((string | number)[]) | null; "clicks": ((string | number)[]) | null; "spend": number[] | null; "conversions": number[] | null; "conversion_value": number[] | null; "video_views": ((string | number)[]) | null; "video_completions": ((string | number)[]) | null };
    row: {  };
  };
  'standby-caught-up': {
    params: { "lsn": string | null };
    row: { "caught_up": boolean | null };
  };
  'standby-position': {
    params: {  };
    row: { "standby": boolean | null; "replayed": string | null };
  };
  'terminate-backend': {
    params: { "pid": number | null };
    row: { "terminated": boolean | null };
  };
  'upsert-fx-rates': {
    params: { "currencies": string[] | null; "days": ((Date | string)[]) | null; "usdPerUnit": number[] | null };
    row: { "rows": number };
  };
  'wal-flushed': {
    params: {  };
    row: { "lsn": string };
  };
};
