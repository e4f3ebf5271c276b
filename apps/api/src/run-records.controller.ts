import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { RunRecordsService } from './run-records.service';
import { workspaceFilePath } from './workspace-file-path';

/**
 * Model-written text (a diff, a file) is sent as inert text: never sniffed into HTML, and in a
 * sandbox with no sources should a browser open it as a page, so it cannot run as the api's origin.
 */
const INERT_TEXT_CSP = "sandbox; default-src 'none'";

@Controller('v1/runs/:id')
export class RunRecordsController {
  constructor(private readonly records: RunRecordsService) {}

  @Get('records')
  list(@Param('id') id: string) {
    return this.records.records(id);
  }

  @Get('diff')
  @Header('Content-Type', 'text/x-diff; charset=utf-8')
  @Header('Content-Security-Policy', INERT_TEXT_CSP)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Cache-Control', 'no-cache')
  diff(@Param('id') id: string) {
    return this.records.diff(id);
  }

  /** `?path=`: checked before any lookup, and only ever compared with the paths the run recorded. */
  @Get('files')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Content-Security-Policy', INERT_TEXT_CSP)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Cache-Control', 'no-cache')
  async file(@Param('id') id: string, @Query('path') path: unknown) {
    return (await this.records.file(id, workspaceFilePath(path))).content;
  }
}
