// Written by `npm run sql:types` from the files of sql/queries, as PostgreSQL describes each statement: its
// parameters and its row. Do not edit; change the query, or its header's `-- not null:` line, and run it again.
export type QueryTypes = {
  'create-import-creatives-staging': {
    params: [];
    row: {  };
  };
  'create-import-staging': {
    params: [];
    row: {  };
  };
  'analyze-catalogue': {
    params: [];
    row: {  };
  };
  'analyze-fact-table': {
    params: [string | null];
    row: { "analyze_fact_table": string | null };
  };
  'analyze-facts': {
    params: [boolean | null];
    row: { "table_name": string };
  };
  'analyze-import-staging': {
    params: [];
    row: {  };
  };
  'analyze-rates': {
    params: [];
    row: {  };
  };
  'catalogue-bump-version': {
    params: [string | null];
    row: {  };
  };
  'catalogue-campaigns': {
    params: [string | null];
    row: { "id": string; "key": string };
  };
  'catalogue-clear-base-metric': {
    params: [string | null, string | null];
    row: {  };
  };
  'catalogue-delete-base-metric': {
    params: [string | null, string | null];
    row: {  };
  };
  'catalogue-delete-metric': {
    params: [string | null, string | null];
    row: {  };
  };
  'catalogue-delete-report': {
    params: [string | null, string | null];
    row: {  };
  };
  'catalogue-delete-segment': {
    params: [string | null, string | null];
    row: {  };
  };
  'catalogue-lock': {
    params: [string | null];
    row: { "id": string };
  };
  'catalogue-read': {
    params: [string | null];
    row: { "adAccounts": unknown; "baseMetrics": unknown; "metrics": unknown; "segments": unknown; "reports": unknown };
  };
  'catalogue-save-ad-account': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null];
    row: { "id": string };
  };
  'catalogue-save-base-metric': {
    params: [string | null, string | null, string | null, string | null, boolean | null, boolean | null, string | null, number | null];
    row: {  };
  };
  'catalogue-save-metric': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null, string | null];
    row: {  };
  };
  'catalogue-save-report': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null, string[] | null, string[] | null, string[] | null, string[] | null];
    row: { "id": string };
  };
  'catalogue-save-segment': {
    params: [string | null, string | null, string | null, string | null, string[] | null];
    row: { "id": string };
  };
  'charge-quota-batch': {
    params: [string | null, (Date | string) | null, string[] | null, number[] | null, number[] | null];
    row: { "outcome": string; "budget": number; "used": number; "leased": number; "reportsVersion": number };
  };
  'check-health': {
    params: [];
    row: { "ok": number | null };
  };
  'cli-list-organizations': {
    params: [];
    row: { "id": string | null; "name": string | null; "currency": string | null; "plan": string | null; "locked": boolean | null; "budgetPerHour": number | null };
  };
  'create-client-secret': {
    params: [string | null, Uint8Array | null, (Date | string) | null];
    row: { "id": string };
  };
  'create-client': {
    params: [string | null, string | null, string | null, string[] | null, boolean | null, string[] | null, boolean | null, string[] | null];
    row: { "id": string };
  };
  'create-organization': {
    params: [string | null, string | null];
    row: { "id": string };
  };
  'create-signing-key': {
    params: [string | null, Uint8Array | null];
    row: { "kid": string };
  };
  'create-subscription': {
    params: [string | null, string | null];
    row: {  };
  };
  'defer-rollups': {
    params: [];
    row: { "defer_rollups": string | null };
  };
  'delete-demo-rates': {
    params: [string[] | null];
    row: { "currencies": string[] };
  };
  'delete-organization': {
    params: [string | null];
    row: { "clients": number | null; "factRows": number | null };
  };
  'demo-add-ad-account': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-campaign': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-creative': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-custom-metric': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-organization': {
    params: [string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-report-ad-account': {
    params: [string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-report-segment': {
    params: [string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-report': {
    params: [string | null, string | null, string | null, string | null, string | null, string | null, string[] | null, string[] | null];
    row: {  };
  };
  'demo-add-segment-campaign': {
    params: [string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-segment': {
    params: [string | null, string | null, string | null, string | null];
    row: {  };
  };
  'demo-add-subscription': {
    params: [string | null, string | null];
    row: {  };
  };
  'demo-lock': {
    params: [];
    row: { "pg_advisory_xact_lock": string | null };
  };
  'facts-resume-point': {
    params: [];
    row: { "resume": string };
  };
  'find-client-credentials': {
    params: [string | null, (Date | string) | null];
    row: { "id": string; "organization_id": string; "scopes": string[]; "reports_all": boolean; "report_ids": string[]; "ad_accounts_all": boolean; "ad_account_ids": string[]; "revoked_at": Date | null; "secret_hashes": Uint8Array[] };
  };
  'find-copy-target-contents': {
    params: [];
    row: { "tables": number; "readout": boolean };
  };
  'find-demo-client': {
    params: [string | null];
    row: { "id": string };
  };
  'find-import-currency-conflict': {
    params: [string | null];
    row: { "line": number | null; "existing": string; "given": string | null; "platform": string; "external_id": string; "name": string };
  };
  'find-installation-rows': {
    params: [];
    row: { "installed": boolean };
  };
  'find-organization-ad-accounts': {
    params: [string | null, string[] | null];
    row: { "id": string };
  };
  'find-organization-reports': {
    params: [string | null, string[] | null];
    row: { "id": string };
  };
  'find-unconvertible-currencies': {
    params: [string | null];
    row: { "currency": string; "needed_from": string | null; "first_rate": string | null; "organizations": string[] };
  };
  'generate-entities': {
    params: [string | null, number | null, number | null, number | null, string[] | null];
    row: {  };
  };
  'generate-facts': {
    params: [string | null, (Date | string) | null, (Date | string) | null];
    row: { "rows": number };
  };
  'generate-fx-rates': {
    params: [string | null, (Date | string) | null, (Date | string) | null, (string | number) | null];
    row: { "rows": number | null };
  };
  'get-backend': {
    params: [];
    row: { "pid": number | null; "embedded": boolean | null };
  };
  'get-nearest-secret-expiry': {
    params: [string | null, (Date | string) | null];
    row: { "nearest": Date | null };
  };
  'get-organization-record': {
    params: [string | null];
    row: { "item": unknown };
  };
  'get-organization': {
    params: [string | null];
    row: { "id": string; "name": string; "currency": string; "time_zone": string; "created_at": Date };
  };
  'get-quota-standing': {
    params: [string | null, (Date | string) | null];
    row: { "budget": number; "used": number };
  };
  'get-report-fingerprint': {
    params: [string | null, string | null, boolean | null, string[] | null, boolean | null, string[] | null, string | null];
    row: { "snapshot": string | null; "fingerprint": string | null };
  };
  'get-report-scope': {
    params: [string | null, string | null, boolean | null, string[] | null, boolean | null, string[] | null];
    row: { "id": string; "name": string; "kind": string; "currency": string; "metrics": string[]; "groupings": string[]; "version": string; "accounts": unknown; "segments": unknown; "custom_metrics": unknown; "fingerprint": string; "snapshot": string | null };
  };
  'get-report-span': {
    params: [string[] | null, string[] | null];
    row: { "first": string | null; "last": string | null };
  };
  'get-report': {
    params: [string | null, string | null, boolean | null, string[] | null, boolean | null, string[] | null];
    row: { "item": unknown; "version": number };
  };
  'get-subscription': {
    params: [string | null];
    row: { "code": string; "name": string; "public_api": boolean; "conversion_metrics": boolean; "budget": number; "locked": boolean };
  };
  'import-accounts': {
    params: [string | null];
    row: { "id": string };
  };
  'import-campaigns': {
    params: [string | null, boolean | null];
    row: {  };
  };
  'import-creatives': {
    params: [string | null];
    row: {  };
  };
  'import-facts': {
    params: [string | null];
    row: { "repeated_days": number };
  };
  'list-ad-accounts': {
    params: [(string | number) | null, (string | number) | null, string | null, boolean | null, string[] | null, string | null];
    row: { "total": number | null; "items": unknown };
  };
  'list-all-signing-keys': {
    params: [];
    row: { "kid": string; "createdAt": string | null; "current": boolean | null; "retiredAt": string | null };
  };
  'list-base-metrics': {
    params: [string | null];
    row: { "name": string; "slot": number; "kind": string; "whole": boolean };
  };
  'list-campaigns': {
    params: [(string | number) | null, (string | number) | null, string | null, boolean | null, string[] | null, string | null, string | null];
    row: { "total": number | null; "items": unknown };
  };
  'list-clients': {
    params: [string | null];
    row: { "id": string; "name": string; "scopes": string[]; "reports_all": boolean; "report_ids": string[]; "ad_accounts_all": boolean; "ad_account_ids": string[]; "created_at": Date; "revoked_at": Date | null; "secrets": unknown };
  };
  'list-copied-tables': {
    params: [];
    row: { "name": string; "columns": string[]; "parents": string[] };
  };
  'list-fx-coverage': {
    params: [];
    row: { "currency": string; "first": string; "last": string; "days": number; "sources": string[] };
  };
  'list-metric-display-names': {
    params: [string | null];
    row: { "name": string; "display_name": string };
  };
  'list-organization-metrics': {
    params: [(string | number) | null, (string | number) | null, string | null];
    row: { "total": number | null; "items": unknown };
  };
  'list-organizations': {
    params: [(string | number) | null, (string | number) | null, string | null];
    row: { "total": number | null; "items": unknown };
  };
  'list-plans': {
    params: [];
    row: { "code": string };
  };
  'list-reports': {
    params: [(string | number) | null, (string | number) | null, string | null, boolean | null, string[] | null, boolean | null, string[] | null];
    row: { "total": number; "items": unknown; "version": number };
  };
  'list-revoked-clients': {
    params: [];
    row: { "ids": string[] | null; "read_at": Date | null };
  };
  'list-segments': {
    params: [(string | number) | null, (string | number) | null, string | null, boolean | null, string[] | null];
    row: { "total": number | null; "items": unknown };
  };
  'list-signing-keys': {
    params: [];
    row: { "kid": string; "secret": Uint8Array; "created_at": Date; "retired_at_ms": number | null };
  };
  'list-system-metrics': {
    params: [(string | number) | null, (string | number) | null];
    row: { "total": number | null; "items": unknown };
  };
  'list-token-issuers': {
    params: [];
    row: { "issuer": string };
  };
  'lock-signing-keys': {
    params: [];
    row: {  };
  };
  'lock-writers': {
    params: [];
    row: { "locked": boolean };
  };
  'mark-fetched': {
    params: [string[] | null, (Date | string) | null];
    row: {  };
  };
  'mark-organization-fetched': {
    params: [string | null, (Date | string) | null];
    row: {  };
  };
  'mark-updates-changing': {
    params: [];
    row: { "set_config": string | null };
  };
  'rebuild-deferred-rollups': {
    params: [];
    row: { "rebuild_deferred_rollups": string | null };
  };
  'refund-quota': {
    params: [string | null, string | null, (Date | string) | null, number | null];
    row: { "budget": number; "used": number };
  };
  'register-token-issuer': {
    params: [string | null];
    row: {  };
  };
  'report-data-ad-account': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null];
    row: { "adAccountId": string; "adAccountName": string; "platform": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-campaign': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null];
    row: { "campaignId": string; "campaignName": string; "adAccountId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-creative-one-currency': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, boolean | null];
    row: { "creativeId": string; "creativeName": string; "campaignId": string; "externalId": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-creative-summed': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, boolean | null];
    row: { "creativeId": string; "creativeName": string; "campaignId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-creative': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, boolean | null];
    row: { "creativeId": string | null; "creativeName": string; "campaignId": string; "externalId": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-month': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null];
    row: { "month": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-segment': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string[] | null];
    row: { "segmentId": string; "segmentName": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-data-total': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null];
    row: { "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-days-campaign': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string | null, (Date | string) | null];
    row: { "period": string | null; "campaignId": string; "campaignName": string; "adAccountId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-days-creative': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string | null, (Date | string) | null, boolean | null];
    row: { "period": string | null; "creativeId": string | null; "creativeName": string; "campaignId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-ad-account': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string | null, (Date | string) | null];
    row: { "period": string | null; "adAccountId": string; "adAccountName": string; "platform": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-campaign': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string | null, (Date | string) | null];
    row: { "period": string | null; "campaignId": string; "campaignName": string; "adAccountId": string; "externalId": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-creative': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string | null, (Date | string) | null, boolean | null];
    row: { "period": string | null; "creativeId": string | null; "creativeName": string; "campaignId": string; "externalId": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-segment': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string | null, (Date | string) | null, string[] | null];
    row: { "period": string | null; "segmentId": string; "segmentName": string; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'report-periods-total': {
    params: [string[] | null, string[] | null, (Date | string) | null, (Date | string) | null, string | null, string | null, string | null, (Date | string) | null];
    row: { "period": string | null; "impressions": number | null; "clicks": number | null; "spend": number | null; "conversions": number | null; "conversion_value": number | null; "video_views": number | null; "video_completions": number | null };
  };
  'revoke-client-secret': {
    params: [string | null, string | null];
    row: { "id": string; "revoked_at": Date | null };
  };
  'revoke-client': {
    params: [string | null];
    row: { "id": string; "revoked_at": Date | null };
  };
  'rotate-signing-key': {
    params: [string | null, Uint8Array | null, number | null];
    row: { "kid": string; "retired": number | null };
  };
  'set-connection-status': {
    params: [string | null, string | null];
    row: { "id": string; "connection_status": string };
  };
  'set-plan': {
    params: [string | null, string | null, number | null];
    row: { "organization_id": string; "plan_code": string; "budget": number | null };
  };
  'set-subscription-lock': {
    params: [string | null, boolean | null];
    row: { "organization_id": string; "locked": boolean };
  };
  'stage-import-creatives': {
    params: [number[] | null, number[] | null, string[] | null, string[] | null, string[] | null, string[] | null, number[] | null, string[] | null, string[] | null, string[] | null, string[] | null, string[] | null, string[] | null, string[] | null];
    row: {  };
  };
  'stage-import-rows': {
    params: [number[] | null, number[] | null, ((Date | string)[]) | null, string[] | null, ((string | number)[]) | null, ((string | number)[]) | null, number[] | null, number[] | null, number[] | null, ((string | number)[]) | null, ((string | number)[]) | null];
    row: {  };
  };
  'standby-caught-up': {
    params: [string | null];
    row: { "caught_up": boolean | null };
  };
  'standby-position': {
    params: [];
    row: { "standby": boolean | null; "replayed": string | null };
  };
  'terminate-backend': {
    params: [number | null];
    row: { "terminated": boolean | null };
  };
  'upsert-fx-rates': {
    params: [string[] | null, ((Date | string)[]) | null, number[] | null];
    row: { "rows": number };
  };
  'wal-flushed': {
    params: [];
    row: { "lsn": string };
  };
};
