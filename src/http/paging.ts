// The paging envelope and its parameters (docs/decisions.md §8).
import * as v from 'valibot';
import type { Sql } from '../store/database.ts';
import { queryAs, type NamedParams, type QueryName } from '../store/queries.ts';
import { wholeNumber } from './queryParams.ts';
import { json } from './respond.ts';

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

export const pagingEntries = {
  page: v.optional(wholeNumber('page', 1, 100_000_000), '1'),
  pageSize: v.optional(wholeNumber('pageSize', 1, MAX_PAGE_SIZE), String(DEFAULT_PAGE_SIZE)),
};

export type Paging = { page: number; pageSize: number };

/**
 * Runs a list query and answers the envelope. List queries take the page and page size as $1 and $2 and
 * return one row: `total` (every match) and `items` (the page, already in the response's shape).
 */
export async function listPage(sql: Sql, name: QueryName, paging: Paging, params: NamedParams = {}) {
  const [row] = await queryAs<ListRow>(sql, name, { page: paging.page, size: paging.pageSize, ...params });
  return json(envelope(paging, row));
}

/** What a list query returns: `total` (every match) and `items` (the page, already in the response's shape). */
export type ListRow = { total: number; items: unknown[] };

export function envelope(paging: Paging, row: ListRow) {
  return {
    data: row.items,
    page: paging.page,
    pageSize: paging.pageSize,
    totalCount: row.total,
    hasMore: paging.page * paging.pageSize < row.total,
  };
}
