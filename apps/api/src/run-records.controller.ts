import { Controller, Get, Header, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
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

  /** A greenfield or copied run's branch as a git bundle (`git clone <file>`), or as a patch (`git apply <file>`). */
  @Get('bundle')
  bundle(@Param('id') id: string, @Res() res: Response) {
    return this.send(id, 'bundle', 'application/octet-stream', res);
  }

  @Get('patch')
  patch(@Param('id') id: string, @Res() res: Response) {
    return this.send(id, 'patch', 'text/x-diff', res);
  }

  private async send(id: string, kind: 'bundle' | 'patch', type: string, res: Response): Promise<void> {
    const { bytes, name } = await this.records.exported(id, kind);
    res.set({
      'Content-Type': type,
      'Content-Disposition': `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
      'Content-Security-Policy': INERT_TEXT_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    res.send(bytes);
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
