import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { Access } from '../http/guard';
import { Doc } from '../openapi/doc';
import { generateOpenApi } from '../openapi/generate';
import { renderDocsPage } from '../openapi/page';
import { InputLimitsGuard } from '../http/input-limits.guard';

const VERSION: string = require('../../package.json').version;

@UseGuards(InputLimitsGuard)
@Controller('api')
export class DocsController {
  private document: Record<string, unknown> | null = null;

  @Get('openapi.json')
  @Access({ auth: 'none' })
  @Doc({ summary: 'This OpenAPI 3.1 document', tags: ['docs'], auth: 'none', responses: { 200: { description: 'OpenAPI 3.1' } } })
  openapi() {
    return (this.document ??= generateOpenApi(VERSION));
  }

  @Get('docs')
  @Access({ auth: 'none' })
  @Header('content-type', 'text/html; charset=utf-8')
  @Doc({ summary: 'Rendered API reference', tags: ['docs'], auth: 'none', responses: { 200: { description: 'HTML page', contentType: 'text/html' } } })
  docs() {
    return renderDocsPage(this.openapi());
  }
}
